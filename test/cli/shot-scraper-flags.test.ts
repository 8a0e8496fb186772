import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, MAGIC, near } from '../helpers/pixels.js';
import { runShot } from '../helpers/shot-cli.js';

/**
 * shot-scraper's flags on our `shot` (issue 55, items 1 to 4), as its docs and tests at
 * simonw/shot-scraper (release 1.11) type them: each test is named after the case it comes from.
 */
let fixtures: FixtureServer;
let dir: string;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Two 800 x 40 boxes 80 px apart: red above, blue below, on a tall white page.
    '/two-boxes': (_req, res) =>
      html(res, '<body style="background:#fff"><div id="a" style="width:800px;height:40px;background:#f00"></div><div style="height:80px"></div><div id="b" style="width:800px;height:40px;background:#00f"></div><div style="height:3000px"></div></body>'),
  });
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'shot-scraper-flags-'));
});
afterAll(async () => {
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const image = (file: string) => decode(readFileSync(path.join(dir, file)));
const shots = (...outputs: string[]): string => outputs.map((output) => `- output: ${output}\n  url: ${fixtures.url('/solid')}\n  width: 200\n  height: 100\n`).join('');

describe.skipIf(!isBuilt())('shot-scraper flags on the built CLI', () => {
  it('docs/multi.md: shot-scraper multi shots.yml --retina, -o one.png -o three.png, and test_error_on_invalid_scale_factors (multi --scale-factor 0)', async () => {
    writeFileSync(path.join(dir, 'shots.yml'), shots('one.png', 'two.png', 'three.png'));
    const retina = await runShot(dir, ['--multi', 'shots.yml', '--retina']);
    expect(retina.code, retina.stderr).toBe(0);
    expect(await image('one.png')).toMatchObject({ width: 400, height: 200 });
    for (const file of ['one.png', 'two.png', 'three.png']) rmSync(path.join(dir, file));
    const chosen = await runShot(dir, ['--multi', 'shots.yml', '-o', 'one.png', '-o', 'three.png']);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(['one.png', 'two.png', 'three.png'].map((file) => existsSync(path.join(dir, file)))).toEqual([true, false, true]);
    const zero = await runShot(dir, ['--multi', 'shots.yml', '--scale-factor', '0']);
    expect(zero.code).toBe(3);
    expect(zero.stderr).toContain('device_scale_factor');
  });

  it('docs/screenshots.md: -s twice captures the box around both; --retina with --scale-factor and -j twice are refused', async () => {
    const both = await runShot(dir, [fixtures.url('/two-boxes'), '-o', 'boxes.png', '-s', '#a', '-s', '#b']);
    expect(both.code, both.stderr).toBe(0);
    const boxes = await image('boxes.png');
    expect([boxes.width, boxes.height]).toEqual([800, 160]);
    expect(near(boxes.at(400, 20), '#ff0000') && near(boxes.at(400, 140), '#0000ff')).toBe(true);
    const scale = await runShot(dir, [fixtures.url('/two-boxes'), '-o', 'scale.png', '--retina', '--scale-factor', '3']);
    expect(scale.code).toBe(2);
    expect(scale.stderr).toContain('--scale-factor repeats --retina');
    const scripts = await runShot(dir, [fixtures.url('/two-boxes'), '-o', 'scripts.png', '-j', 'document.title', '-j', 'document.title']);
    expect(scripts.code).toBe(2);
    expect(scripts.stderr).toContain('given twice');
    expect(existsSync(path.join(dir, 'scripts.png'))).toBe(false);
  });

  it('docs/screenshots.md: shot-scraper https://www.example.com/ -o - > example.png, and without -o a file named after the URL', async () => {
    const piped = await runShot(dir, [fixtures.url('/solid'), '-o', '-', '--width', '200', '--height', '100']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.subarray(0, 8).equals(MAGIC.png)).toBe(true);
    expect(await decode(piped.stdout)).toMatchObject({ width: 200, height: 100 });
    expect(existsSync(path.join(dir, '-'))).toBe(false);
    const unnamed = await runShot(dir, [fixtures.url('/solid'), '--width', '200', '--height', '100']);
    expect(unnamed.code, unnamed.stderr).toBe(0);
    expect((await image(`${new URL(fixtures.origin).host.replaceAll('.', '-').replace(':', '')}-solid.png`)).width).toBe(200);
  });

  it('test_version: --version prints the package version', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BUILT_CLI, '--version'], { encoding: 'utf8' });
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(stdout).toBe(`capture-engine, version ${version}\n`);
  });

  it('docs/multi.md: quality: 80 saves a JPEG, as -o page.jpg does', async () => {
    writeFileSync(path.join(dir, 'quality.yml'), `- output: quality.png\n  url: ${fixtures.url('/solid')}\n  quality: 80\n  width: 200\n  height: 100\n`);
    const run = await runShot(dir, ['--multi', 'quality.yml']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'quality.png')).subarray(0, 3).equals(MAGIC.jpg)).toBe(true);
    await runShot(dir, [fixtures.url('/solid'), '-o', 'page.jpg']);
    expect(readFileSync(path.join(dir, 'page.jpg')).subarray(0, 3).equals(MAGIC.jpg)).toBe(true);
  });
});
