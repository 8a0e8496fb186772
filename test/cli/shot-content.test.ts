import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { constructsMarkdown, CONTENT_ROUTES, expectedLinks } from '../plugins/page-content-fixtures.js';

const run = promisify(execFile);

/** `shot URL -o page.md`: the format from the file's extension, unless --format names one (issue 52). */
let fixtures: FixtureServer;
let dir: string;

beforeAll(async () => {
  fixtures = await startFixtureServer(CONTENT_ROUTES);
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'shot-content-'));
});
afterAll(async () => {
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (...args: string[]) => run(process.execPath, [BUILT_CLI, 'shot', ...args, '--allow-private-networks', '--quiet'], { encoding: 'utf8' });

describe.skipIf(!isBuilt())('shot writes what a page says (built CLI)', () => {
  it('-o page.md is Markdown; --format links into a .json file; -o page.txt is text', async () => {
    const markdown = path.join(dir, 'page.md');
    const { stdout } = await shot(fixtures.url('/constructs'), '-o', markdown, '--content', 'full', '--hide-selectors', '#hide-me');
    expect(stdout).toBe(`${markdown}: markdown, ${Buffer.byteLength(constructsMarkdown(fixtures.origin))} bytes\n`);
    expect(readFileSync(markdown, 'utf8')).toBe(constructsMarkdown(fixtures.origin));
    const links = path.join(dir, 'links.json');
    await shot(fixtures.url('/links'), '-o', links, '--format', 'links');
    expect(JSON.parse(readFileSync(links, 'utf8'))).toEqual({ links: expectedLinks(fixtures.origin) });
    const text = path.join(dir, 'page.txt');
    await shot(fixtures.url('/constructs'), '-o', text);
    expect(readFileSync(text, 'utf8')).toContain('Hidden by the caller');
  });
});
