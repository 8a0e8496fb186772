import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, MAGIC, near } from '../helpers/pixels.js';
import { runCli, runShot } from '../helpers/shot-cli.js';
import { PDFDocument } from '@cantoo/pdf-lib';
import { unzipSync } from 'fflate';

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
    '/missing': (_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not found</h1>'),
    // Signed in by HTTP Basic (user:pass), the page leaves a cookie and a localStorage item.
    '/basic': (req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('user:pass').toString('base64')}`) return void res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
      res.setHeader('Set-Cookie', 'session=signed-in; Path=/');
      html(res, "<title>Signed in</title><script>localStorage.setItem('token', 'xyz')</script>");
    },
    // Inline scripts run, eval does not: what --bypass-csp lifts.
    '/csp': (_req, res) => {
      res.setHeader('Content-Security-Policy', "script-src 'unsafe-inline'");
      html(res, "<title>CSP</title><script>try { console.log('eval gives ' + eval('6 * 7')) } catch { console.log('eval refused') }</script>");
    },
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

/** shot-scraper's TEST_HTML as a local file, with a stylesheet and an image beside it, and a second page it links to. */
const TEST_HTML = '<!DOCTYPE html>\n<html>\n<head>\n<title>Test title</title>\n<link rel="stylesheet" href="style.css">\n</head>\n<body>\n<h1>Test</h1>\n<p>Paragraph 1</p>\n<img src="dot.svg">\n<a id="more" href="more.html">More</a>\n</body>\n</html>\n';
const local = (): void => {
  writeFileSync(path.join(dir, 'index.html'), TEST_HTML);
  writeFileSync(path.join(dir, 'style.css'), 'body { background: rgb(0, 128, 0); }');
  writeFileSync(path.join(dir, 'dot.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="7" height="5"></svg>');
  writeFileSync(path.join(dir, 'more.html'), '<h1 id="more-heading">More information</h1>');
};
const cli = (...args: string[]) => runCli(dir, args);

describe.skipIf(!isBuilt())("shot-scraper's other commands on the built CLI (issue 55, item 7)", () => {
  it('test_javascript and test_javascript_width_height: the value as JSON, of a local file with the files beside it', async () => {
    local();
    const run = await cli('javascript', 'index.html', '--width', '555', '--height', '444', '({title: document.title, width: innerWidth, height: innerHeight, background: getComputedStyle(document.body).backgroundColor, image: document.images[0].naturalWidth})');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.toString()).toMatch(/^\{\n {4}"title": "Test title",/);
    expect(JSON.parse(run.stdout.toString())).toEqual({ title: 'Test title', width: 555, height: 444, background: 'rgb(0, 128, 0)', image: 7 });
  });

  it('docs/javascript.md --bypass-csp, with --log-console, --log-requests, -a auth.json and --browser-arg on one page; a script that throws exits 1', async () => {
    const url = fixtures.url('/csp');
    writeFileSync(path.join(dir, 'auth.json'), JSON.stringify({ cookies: [{ name: 'session', value: 'abc', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }], origins: [{ origin: fixtures.origin, localStorage: [{ name: 'token', value: 'xyz' }] }] }));
    const script = "({ cookie: document.cookie, token: localStorage.getItem('token'), coarse: matchMedia('(pointer: coarse)').matches })";
    const run = await cli('javascript', url, script, '--bypass-csp', '--log-console', '--log-requests', 'requests.jsonl', '-a', 'auth.json', '--browser-arg', '--blink-settings=primaryPointerType=2,availablePointerTypes=2');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toEqual({ cookie: 'session=abc', token: 'xyz', coarse: true });
    expect(run.stderr).toContain('eval gives 42\n');
    expect(JSON.parse(readFileSync(path.join(dir, 'requests.jsonl'), 'utf8').split('\n')[0] as string)).toMatchObject({ method: 'GET', url, status: 200 });
    // docs/javascript.md, "Using this for automated tests": a script that throws exits 1 with what it threw.
    const blocked = await cli('javascript', url, "if (document.title != 'Datasette') { throw 'Wrong title detected'; }", '--log-console');
    expect([blocked.code, blocked.stderr]).toEqual([1, expect.stringContaining('eval refused\n')]);
    expect(blocked.stderr).toContain('Wrong title detected');
    const refused = await cli('javascript', url, 'document.title', '--browser-arg', '--remote-debugging-port=9222');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--browser-arg --remote-debugging-port is refused');
  });

  it('test_html: the final HTML after -j, and -s h1 its outerHTML', async () => {
    local();
    const page = await cli('html', 'index.html', '-o', 'out.html', '-j', "document.body.removeChild(document.querySelector('h1'))");
    expect(page.code, page.stderr).toBe(0);
    const written = readFileSync(path.join(dir, 'out.html'), 'utf8');
    // shot-scraper's test compares without line breaks.
    expect(written.replaceAll('\n', '').startsWith('<!DOCTYPE html><html><head><title>Test title</title>')).toBe(true);
    expect(written).not.toContain('<h1>');
    const heading = await cli('html', 'index.html', '-s', 'h1');
    expect(heading.stdout.toString()).toBe('<h1>Test</h1>');
  });

  it('docs/accessibility.md: the accessibility tree as JSON', async () => {
    local();
    const run = await cli('accessibility', 'index.html');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toEqual(expect.arrayContaining(['heading "Test" [level=1]', { paragraph: 'Paragraph 1' }]));
  });

  it('docs/pdf.md: shot-scraper pdf invoice.html -o invoice.pdf, with --landscape --format a5 --media-screen', async () => {
    local();
    const run = await cli('pdf', 'index.html', '-o', 'invoice.pdf', '--landscape', '--format', 'a5', '--media-screen');
    expect(run.code, run.stderr).toBe(0);
    const { width, height } = (await PDFDocument.load(readFileSync(path.join(dir, 'invoice.pdf')))).getPage(0).getSize();
    // A5 on its side: 8.27 x 5.83 in, 595 x 420 pt (Chromium rounds the width up).
    expect(Math.abs(width - 595.4)).toBeLessThan(1);
    expect(Math.abs(height - 419.8)).toBeLessThan(1);
  });

  it('test_har_extract (-x -z -o basepath) and test_multi_har (--har, an entry without output: only loaded): the bodies in the ZIP, inline in trace.har, and extracted', async () => {
    type Har = { log: { entries: { request: { url: string }; response: { content: { text?: string; _file?: string } } }[] } };
    const zipped = await cli('har', fixtures.url('/solid'), '-x', '-z', '-o', 'page');
    expect(zipped.code, zipped.stderr).toBe(0);
    const files = unzipSync(readFileSync(path.join(dir, 'page.har.zip')));
    const har = JSON.parse(Buffer.from(files['har.har'] as Uint8Array).toString()) as Har;
    const solid = har.log.entries.find((entry) => entry.request.url === fixtures.url('/solid'));
    // As Playwright attaches a body for shot-scraper: a file named by its SHA-1 beside har.har.
    expect(solid?.response.content._file).toMatch(/^[0-9a-f]{40}\.html$/);
    expect(Buffer.from(files[solid?.response.content._file as string] as Uint8Array).toString()).toContain('<body style="background:#ff0000');
    const host = new URL(fixtures.origin).host.replaceAll('.', '-').replace(':', '');
    expect(readFileSync(path.join(dir, 'page', `${host}-solid.html`), 'utf8')).toContain('<body style="background:#ff0000');
    writeFileSync(path.join(dir, 'har.yml'), shots('har-one.png') + `- url: ${fixtures.url('/two-boxes')}\n`);
    const multi = await runShot(dir, ['--multi', 'har.yml', '--har']);
    expect(multi.code, multi.stderr).toBe(0);
    const trace = JSON.parse(readFileSync(path.join(dir, 'trace.har'), 'utf8')) as Har;
    expect(trace.log.entries.map((entry) => entry.request.url)).toEqual(expect.arrayContaining([fixtures.url('/solid'), fixtures.url('/two-boxes')]));
    expect(trace.log.entries.find((entry) => entry.request.url === fixtures.url('/two-boxes'))?.response.content.text).toContain('<div id="a"');
    expect(existsSync(path.join(dir, 'har-one.png'))).toBe(true);
    expect(existsSync(path.join(dir, `${host}-two-boxes.png`))).toBe(false);
  });

  it('--skip (skip_or_fail), a multi shot timing out, and --auth-username/--auth-password with auth --headless: a 404 skipped with exit 0, a Basic sign-in saved for -a', async () => {
    const skipped = await runShot(dir, [fixtures.url('/missing'), '-o', 'missing.png', '--skip']);
    expect([skipped.code, skipped.stderr]).toEqual([0, `404 error for ${fixtures.url('/missing')}, skipping\n`]);
    expect(existsSync(path.join(dir, 'missing.png'))).toBe(false);
    // multi: a shot that times out is said, and the next runs (shot-scraper's TimeoutError without --fail).
    writeFileSync(path.join(dir, 'timeout.yml'), `- url: ${fixtures.url('/never')}\n  output: never.png\n  timeout: 1000\n${shots('after.png')}`);
    const timedOut = await runShot(dir, ['--multi', 'timeout.yml']);
    expect([timedOut.code, timedOut.stderr]).toEqual([0, expect.stringContaining(`(${fixtures.url('/never')})`)]);
    expect([existsSync(path.join(dir, 'never.png')), existsSync(path.join(dir, 'after.png'))]).toEqual([false, true]);
    const both = await runShot(dir, [fixtures.url('/missing'), '--skip', '--fail']);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--skip and --fail cannot be used together')]);
    const signedIn = await cli('auth', fixtures.url('/basic'), 'state.json', '--headless', '--auth-username', 'user', '--auth-password', 'pass');
    expect(signedIn.code, signedIn.stderr).toBe(0);
    const state = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as { cookies: { name: string; value: string }[]; origins: { origin: string; localStorage: unknown[] }[] };
    expect(state.cookies).toEqual([expect.objectContaining({ name: 'session', value: 'signed-in' })]);
    expect(state.origins).toEqual([{ origin: fixtures.origin, localStorage: [{ name: 'token', value: 'xyz' }] }]);
    expect(statSync(path.join(dir, 'state.json')).mode & 0o777).toBe(0o600);
  });

  it('auth without a display, --browser firefox, --interactive, -i gh:title: refused before any browser starts, saying why', async () => {
    const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...env } = process.env;
    const windowless = await runCli(dir, ['auth', fixtures.url('/basic'), 'auth.json'], '', env);
    expect([windowless.code, windowless.stderr]).toEqual([2, expect.stringContaining('there is no display here (DISPLAY is not set)')]);
    const firefox = await cli('javascript', fixtures.url('/solid'), 'document.title', '--browser', 'firefox');
    expect([firefox.code, firefox.stderr]).toEqual([2, expect.stringContaining('--browser firefox is not available: capture-engine drives Chromium only')]);
    const interactive = await runShot(dir, [fixtures.url('/solid'), '--interactive']);
    expect([interactive.code, interactive.stderr]).toEqual([2, expect.stringContaining('--interactive is not available: the engine captures in a browser without a window')]);
    const github = await cli('javascript', fixtures.url('/solid'), '-i', 'gh:title');
    expect([github.code, github.stderr]).toEqual([3, expect.stringContaining("GitHub path format should be 'username/repo/path/to/file.js' or 'username/file.js'")]);
  });

  it('test_video_records_video (a local page, a click to the page it links to) and test_video_validation', async () => {
    local();
    // With the CLI's own steps (docs/video.md): sh: before the browser and in a scene, screenshot:, and open: after the first scene.
    const board = 'output: demo.webm\nurl: index.html\nsh: [touch, before.txt]\ncursor: true\nviewport:\n  width: 640\n  height: 360\nscenes:\n  - name: Home\n    wait_for: "#more"\n    do:\n      - pause: 0.1\n  - name: Details\n    do:\n      - click: "#more"\n      - expect: {selector: h1, contains: More}\n      - screenshot: {output: heading.png, selector: "#more-heading"}\n  - name: Back\n    sh: test -f heading.png && touch scene.txt\n    open: index.html\n';
    // --mp4 as there: the WebM first, then an MP4 copy beside it.
    const run = await runCli(dir, ['video', '-', '--mp4'], board);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'demo.webm')).subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))).toBe(true);
    expect(readFileSync(path.join(dir, 'demo.mp4')).subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(run.stderr).toContain('Note: the pointer is drawn as a black arrow, without click rings');
    expect([existsSync(path.join(dir, 'before.txt')), existsSync(path.join(dir, 'scene.txt'))]).toEqual([true, true]);
    expect((await image('heading.png')).height).toBeGreaterThan(10);
    const empty = await runCli(dir, ['video', '-'], '');
    expect(empty.stderr).toContain('Storyboard YAML file cannot be empty');
    const banana = await runCli(dir, ['video', '-'], 'output: demo.webm\nurl: https://example.com/\nscenes:\n- name: one\n  banana: true\n');
    expect([banana.code, banana.stderr]).toEqual([3, expect.stringContaining('scenes.0.banana: Extra inputs are not permitted')]);
  });
});
