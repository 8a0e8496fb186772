import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isBuilt } from '../helpers/built-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { runShot } from '../helpers/shot-cli.js';

/**
 * shot-scraper's multi files on `shot --multi` (issue 55, items 5 and 6): its YAML keys and file
 * conventions, each test named after the case of simonw/shot-scraper (release 1.11) it comes from.
 */
let fixtures: FixtureServer;
let dir: string;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'shot-scraper-multi-'));
});
afterAll(async () => {
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string): void => writeFileSync(path.join(dir, name), text);
const image = (name: string) => decode(readFileSync(path.join(dir, name)));
const solid = (): string => fixtures.url('/solid');

describe.skipIf(!isBuilt())('shot-scraper multi files on the built CLI', () => {
  it('test_multi_js_file and docs/multi.md javascript: run before the shot', async () => {
    file('green.js', "document.body.style.background = '#00ff00'");
    file('js.yml', `- url: ${solid()}\n  output: js-file.png\n  width: 200\n  height: 100\n  js_file: green.js\n- url: ${solid()}\n  output: js.png\n  width: 200\n  height: 100\n  javascript: document.body.style.background = '#0000ff'\n`);
    const run = await runShot(dir, ['--multi', 'js.yml']);
    expect(run.code, run.stderr).toBe(0);
    expect(near((await image('js-file.png')).at(100, 50), '#00ff00')).toBe(true);
    expect(near((await image('js.png')).at(100, 50), '#0000ff')).toBe(true);
  });

  it('unknown keys are refused with the entry and the key; test_multi_error_on_non_list; an empty file is nothing to do', async () => {
    file('typo.yml', `- url: ${solid()}\n  output: typo-1.png\n- url: ${solid()}\n  output: typo-2.png\n  wait_fr: 500\n`);
    const typo = await runShot(dir, ['--multi', 'typo.yml']);
    expect(typo.code).toBe(3);
    expect(typo.stderr).toContain('typo.yml, shot 2: unknown key "wait_fr" (did you mean "wait_for"?)');
    expect(existsSync(path.join(dir, 'typo-1.png'))).toBe(false);
    const notList = await runShot(dir, ['--multi', '-'], 'key: value');
    expect(notList.code).toBe(3);
    expect(notList.stderr).toContain('-: expected a YAML or JSON list of shots');
    file('empty.yml', '');
    const empty = await runShot(dir, ['--multi', 'empty.yml']);
    expect(empty.code, empty.stderr).toBe(0);
  });

  it('test_multi_commands and test_multi_commands_fail_on_non_zero_exit: sh: runs, and a failing one stops the file', async () => {
    file('commands.yml', '- sh: echo HELLO > touched.txt\n- sh: exit 3\n- sh: echo no > should-not-run.txt\n');
    const run = await runShot(dir, ['--multi', 'commands.yml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('sh command exited with status 3');
    expect(readFileSync(path.join(dir, 'touched.txt'), 'utf8').trim()).toBe('HELLO');
    expect(existsSync(path.join(dir, 'should-not-run.txt'))).toBe(false);
  });

  it('docs/multi.md conventions: no height is the full page, a URL without a scheme, a local file, multi - and names from the URL', async () => {
    const host = new URL(fixtures.origin).host;
    file('page.html', '<body style="margin:0;background:#0000ff;height:100vh"></body>');
    const yaml = `- url: ${fixtures.url('/bands?count=2&band=1000')}\n  output: full.png\n  width: 200\n- url: ${host}/solid\n  output: no-scheme.png\n  width: 200\n  height: 100\n- url: page.html\n  output: local.png\n  width: 200\n  height: 100\n- url: ${solid()}\n  width: 200\n  height: 100\n`;
    const run = await runShot(dir, ['--multi', '-'], yaml);
    expect(run.code, run.stderr).toBe(0);
    expect(await image('full.png')).toMatchObject({ width: 200, height: 2000 });
    expect(near((await image('no-scheme.png')).at(100, 50), '#ff0000')).toBe(true);
    expect(near((await image('local.png')).at(100, 50), '#0000ff')).toBe(true);
    const named = `${host.replaceAll('.', '-').replace(':', '')}-solid`;
    expect((await image(`${named}.png`)).width).toBe(200);
    await runShot(dir, ['--multi', '-'], yaml);
    expect(existsSync(path.join(dir, `${named}.1.png`))).toBe(true);
  });

  it('test_multi_noclobber: -n skips a shot whose file exists', async () => {
    file('kept.png', '');
    file('noclobber.yml', `- url: ${solid()}\n  output: kept.png\n- url: ${solid()}\n  output: made.png\n  width: 200\n  height: 100\n`);
    const run = await runShot(dir, ['--multi', 'noclobber.yml', '-n']);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(path.join(dir, 'kept.png')).size).toBe(0);
    expect(existsSync(path.join(dir, 'made.png'))).toBe(true);
  });
});
