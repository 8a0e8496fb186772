import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { filenameForHarEntry, extensionForContentType } from '../../src/cli/har-names.js';
import { basicAuthHeaders, checkBrowser, githubScriptUrl, loadGithubScript } from '../../src/cli/scraper-options.js';
import { Servers, runLocal } from '../../src/cli/local-commands.js';
import { storyboardParams } from '../../src/cli/storyboard.js';
import { LocalSteps } from '../../src/cli/storyboard-local.js';

/**
 * The browser-free parts of issue 55's shot-scraper commands, each named after the case of
 * simonw/shot-scraper (release 1.11, tests/test_utils.py and tests/test_shot_scraper.py) it follows.
 */
let dir: string;
let github: Server;
let githubBase: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'shot-scraper-units-'));
  // A stand-in for raw.githubusercontent.com: the path it was asked for, as the script.
  github = createServer((req, res) => (req.url === '/simonw/shot-scraper-scripts/main/title.js' ? res.end('document.title') : res.writeHead(404).end()));
  await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
  githubBase = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => github?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("shot-scraper's helpers", () => {
  it('test_filename_for_har_entry and test_extension_for_content_type', () => {
    const none = (): boolean => false;
    expect(filenameForHarEntry('https://example.com/style.css', 'text/css', none)).toBe('example-com-style.css');
    expect(filenameForHarEntry('https://example.com/page.html', 'text/html; charset=utf-8', none)).toBe('example-com-page.html');
    expect(filenameForHarEntry('https://example.com/api/data', 'application/json', none)).toBe('example-com-api-data.json');
    expect(filenameForHarEntry('https://example.com/api/data', undefined, none)).toBe('example-com-api-data.bin');
    expect(filenameForHarEntry('https://example.com/image.php', 'image/png', none)).toBe('example-com-image-php.png');
    expect(filenameForHarEntry('https://example.com/style.css', 'text/css', (name) => name === 'example-com-style.css')).toBe('example-com-style.1.css');
    expect(filenameForHarEntry('https://example.com/assets/v1/icons/logo.svg', 'image/svg+xml', none)).toBe('example-com-assets-v1-icons-logo.svg');
    expect(filenameForHarEntry('https://example.com/image.png?v=123', 'image/png', none)).toBe('example-com-image.png');
    expect([extensionForContentType('application/font-woff'), extensionForContentType('application/octet-stream'), extensionForContentType(undefined)]).toEqual(['woff', undefined, undefined]);
  });

  it('test_javascript_input_github: gh:simonw/title is simonw/shot-scraper-scripts/main/title.js; offline, a clear error', async () => {
    expect(githubScriptUrl('simonw/title')).toBe('https://raw.githubusercontent.com/simonw/shot-scraper-scripts/main/title.js');
    expect(githubScriptUrl('simonw/repo/path/to/file.js')).toBe('https://raw.githubusercontent.com/simonw/repo/main/path/to/file.js');
    expect(() => githubScriptUrl('title')).toThrow("GitHub path format should be 'username/repo/path/to/file.js' or 'username/file.js'");
    expect(await loadGithubScript('simonw/title', githubBase)).toBe('document.title');
    await expect(loadGithubScript('simonw/missing', githubBase)).rejects.toThrow('Failed to load content from GitHub: HTTP 404');
    // Nothing listens on port 9 of this machine: the error an offline machine gives.
    await expect(loadGithubScript('simonw/title', 'http://127.0.0.1:9')).rejects.toThrow(/^Error fetching from GitHub: .*URL: http:\/\/127\.0\.0\.1:9\/simonw\/shot-scraper-scripts\/main\/title\.js; without network access, download the script/);
  });

  it('--browser: chromium and chrome, the others refused by name; --auth-username/--auth-password as Basic', () => {
    expect(() => checkBrowser('Chromium', 'usage')).not.toThrow();
    expect(() => checkBrowser('chrome', 'usage')).not.toThrow();
    expect(() => checkBrowser('firefox', 'usage')).toThrow('--browser firefox is not available: capture-engine drives Chromium only');
    expect(() => checkBrowser('safari', 'usage')).toThrow('--browser safari: one of chromium, firefox, webkit, chrome, chrome-beta');
    expect(basicAuthHeaders({ 'auth-username': 'user', 'auth-password': 'pass' }, { 'X-A': '1' }, 'usage')).toEqual({ headers: { 'X-A': '1', Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(() => basicAuthHeaders({ 'auth-username': 'user' }, undefined, 'usage')).toThrow('--auth-username and --auth-password go together');
  });
});

describe("shot-scraper's sh:, python: and server:", () => {
  it('test_multi_commands_fail_on_non_zero_exit: sh exit 3, python SystemExit(4); a list is a program and its arguments', async () => {
    await expect(runLocal('sh', 'exit 3')).rejects.toThrow(/^sh command exited with status 3$/);
    await expect(runLocal('python', 'raise SystemExit(4)')).rejects.toThrow(/^python code exited with status 4$/);
    await runLocal('sh', ['touch', path.join(dir, 'touched.html')]);
    expect(existsSync(path.join(dir, 'touched.html'))).toBe(true);
    await expect(runLocal('sh', ['/no/such/program'])).rejects.toThrow('sh command failed: spawn /no/such/program ENOENT');
  });

  it('test_wait_for_server_waits_for_port_to_open and test_multi_server_exits_with_error', async () => {
    const servers = new Servers();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    servers.start(['python3', '-c', `import time, socket; time.sleep(0.3); s = socket.socket(); s.bind(("127.0.0.1", ${port})); s.listen(); open(${JSON.stringify(path.join(dir, 'served'))}, "w").write("up"); time.sleep(30)`]);
    await servers.ready(`http://127.0.0.1:${port}/`);
    expect(readFileSync(path.join(dir, 'served'), 'utf8')).toBe('up');
    servers.stop(false);
    const failing = new Servers();
    failing.start('exit 5');
    await expect(failing.ready(`http://127.0.0.1:${port + 1}/`)).rejects.toThrow('server: process exited with code 5: "exit 5"');
  });
});

describe("shot-scraper's storyboards (test_video_validation)", () => {
  const board = (scenes: unknown[], top: Record<string, unknown> = {}) => storyboardParams({ output: 'demo.webm', url: 'https://example.com/', ...top, scenes }, undefined, new LocalSteps());

  it('sh:, python: and server: before the browser; local steps in the journey as a call and a wait for its mark', () => {
    const { params, before } = board([{ sh: 'echo scene', do: [{ screenshot: 'one.png' }, { open: 'next.html' }, { wait_for_url: '**/next.html' }, { sh: ['touch', 'x'] }, { python: 'print(1)' }] }], { sh: ['echo', 'top'], python: 'print(0)', server: 'python -m http.server 9023' });
    expect(before).toEqual({ sh: ['echo', 'top'], python: 'print(0)', server: 'python -m http.server 9023' });
    const actions = params.actions as { action: string; script?: string; selector?: string }[];
    expect(actions.map((step) => step.action)).toEqual(Array.from({ length: 6 }, () => ['evaluate', 'wait_for']).flat());
    const token = /^html\[data-capture-engine-step="([0-9a-f]{16})"\]$/.exec(actions[1]?.selector ?? '')?.[1];
    expect(token).toBeDefined();
    expect(actions[0]?.script).toMatch(new RegExp(`^void window\\["__captureEngineStoryboard[0-9a-f]{12}"\\]\\("${token}"\\)$`));
  });

  it("click's button and count, type's delay_ms: the CLI's own steps; a plain click and type the engine's", () => {
    const { params } = board([{ do: [{ click: { selector: '#a', count: 2 } }, { type: { into: '#q', text: 'hi', delay_ms: 25 } }, { click: '#a' }, { type: { into: '#q', text: 'hi' } }] }]);
    expect((params.actions as { action: string }[]).map((step) => step.action)).toEqual(['evaluate', 'wait_for', 'evaluate', 'wait_for', 'click', 'type']);
  });

  it('refuses what shot-scraper refuses, with the path', () => {
    expect(() => board([{ do: [{ banana: 1 }] }])).toThrow('Storyboard: scenes.0.do.0: Unknown storyboard action: banana');
    expect(() => board([{ do: [{ sh: 3 }] }])).toThrow('scenes.0.do.0.sh: sh: must be a string or list');
    expect(() => board([{ do: [{ screenshot: { output: 'a.png', clip: 1 } }] }])).toThrow('scenes.0.do.0.screenshot.clip: Extra inputs are not permitted');
    expect(() => board([{ do: [{ click: '#a', pause: 1 }] }])).toThrow('scenes.0.do.0: actions must be single-key mappings');
    expect(() => board([{ do: [{ click: { selector: '#a', button: 'back' } }] }])).toThrow("scenes.0.do.0.click.button: Input should be 'left', 'right' or 'middle'");
    expect(() => board([{ do: [{ type: { text: 'x', delay_ms: 5 } }] }])).toThrow('scenes.0.do.0.type: type: must define into: or selector:');
    expect(() => board([{ do: [{ expect: { timeout: 5 } }] }])).toThrow('scenes.0.do.0.expect: expect: needs a selector: and/or text:');
    expect(() => board([{ do: [{ expect_gone: { text: 'x', timeout: -1 } }] }])).toThrow('scenes.0.do.0.expect_gone.timeout: a whole number of ms from 1 to 600000');
    expect(() => board([{}], { cursor: { visible: true, shape: 'dot' } })).toThrow('Storyboard: cursor.shape: Extra inputs are not permitted');
  });

  it("expect and expect_gone (a selector and/or a text, contains: for short) are the CLI's own steps", () => {
    const { params } = board([{ do: [{ expect: '.done' }, { expect: { selector: 'h1', contains: 'Welcome', timeout: 2000 } }, { expect_gone: { text: 'Loading' } }] }], { cursor: { visible: true, clicks: false, color: '#000' } });
    expect((params.actions as { action: string }[]).map((step) => step.action)).toEqual(Array.from({ length: 3 }, () => ['evaluate', 'wait_for']).flat());
    expect(params.show_cursor).toBe(true);
  });
});
