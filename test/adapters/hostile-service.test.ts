import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { cpuShareBelow, isRunning, processTree } from '../helpers/processes.js';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { until } from '../helpers/wait.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

const KEY = 'ce_hostile_test_0123456789abcdef';
const BUDGET_MS = 4000;
/** The video budget of `duration=2`: the still budget plus 2 s of budget per second of video. */
const VIDEO_BUDGET_MS = BUDGET_MS + 2 * 2000;
/** The busy video's own `timeout`, below its budget. */
const VIDEO_TIMEOUT_MS = 3000;
/** What the issue allows past a capture's budget for its answer. */
const ANSWER_SLACK_MS = 5000;

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/spin-later': (_req, res) => html(res, '<body style="background:#0000ff"><div style="height:5000px"></div><script>setTimeout(() => { while (true) {} }, 300)</script></body>'),
    '/attachment': (_req, res) => res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment; filename="hostile-download.bin"' }).end(Buffer.alloc(200_000, 7)),
    '/script-download': (_req, res) =>
      html(res, `<body style="background:#00ff00"><script>
        const a = document.createElement('a');
        a.href = URL.createObjectURL(new Blob(['hostile'.repeat(10000)])); a.download = 'hostile-blob.bin'; document.body.append(a); a.click();
        const b = document.createElement('a'); b.href = '/attachment'; b.download = 'hostile-server.bin'; document.body.append(b); b.click();
      </script></body>`),
    '/reload-loop': (_req, res) => html(res, '<body style="background:#ff00ff"><script>setTimeout(() => location.reload(), 30)</script></body>'),
    '/refresh-loop': (_req, res) => html(res, '<head><meta http-equiv="refresh" content="0"></head><body style="background:#ff00ff"></body>'),
  });
});
afterAll(async () => fixtures?.close());

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

describe.skipIf(!isBuilt())('hostile pages on the built service', () => {
  let service: BuiltService;
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-hostile-'));
    // As root the service runs Chromium as another user, who must be able to pass through.
    chmodSync(tmp, 0o711);
    service = await startBuiltService('node', {
      CAPTURE_API_KEYS: `${KEY}:ENTERPRISE`,
      CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
      CAPTURE_TIMEOUT_MS: String(BUDGET_MS),
      CAPTURE_CONCURRENCY: '2',
      CAPTURE_LOG_LEVEL: 'warn',
      TMPDIR: tmp,
    });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  const capture = (query: Record<string, string>): Promise<Response> =>
    fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ viewport_width: '400', viewport_height: '300', ...query })}`, { headers: { 'X-API-Key': KEY } });

  it('a video of a busy page answers within its budget + 5 s, and its renderer stops burning CPU', async () => {
    const started = Date.now();
    // A budget of its own below the video's (the page spins from 0.3 s on): the same timeout, sooner.
    const response = await capture({ url: fixtures.url('/spin-later'), format: 'mp4', scenario: 'scroll', duration: '2', timeout: String(VIDEO_TIMEOUT_MS) });
    expect(Date.now() - started).toBeLessThan(VIDEO_TIMEOUT_MS + ANSWER_SLACK_MS);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ code: 'CAPTURE_TIMEOUT' });
    // Polled, not after a fixed wait: a 2 s stretch in which the service's children are all but idle.
    await until(async () => (await cpuShareBelow(service.child.pid as number, 2000)) < 0.05, 'the renderer to stop burning CPU', 7000);
  });

  it('a main document that is a download answers 502 (download); nothing is written to disk', async () => {
    const response = await capture({ url: fixtures.url('/attachment') });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'download' });
  });

  it('downloads started by script are never written to disk; the page is captured', async () => {
    const response = await capture({ url: fixtures.url('/script-download') });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    // The service's own code cache of playwright-core (src/core/loading/code-cache.ts) is written under TMPDIR on purpose.
    const files = filesBelow(tmp).filter((file) => !file.startsWith('capture-engine-code-cache-'));
    expect(files.filter((file) => /hostile|\.bin$|download/i.test(file))).toEqual([]);
  });

  it.each(['/reload-loop', '/refresh-loop'])('a page that keeps reloading itself (%s) answers 200 or 502 (page_navigated), never 500', async (page) => {
    const started = Date.now();
    const response = await capture({ url: fixtures.url(page) });
    expect(Date.now() - started).toBeLessThan(BUDGET_MS + ANSWER_SLACK_MS);
    if (response.status !== 200) {
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'page_navigated' });
    }
  });

  it('a selector that matches nothing answers 422 within 2 s of the page being ready', async () => {
    const started = Date.now();
    const response = await capture({ url: fixtures.url('/solid?color=%2300ff00'), selector: '#not-there' });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'ELEMENT_NOT_FOUND', param: 'selector' });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('with CAPTURE_MAX_QUEUE=0, a capture that finds a free slot runs (and one that would wait is refused)', async () => {
    const queueless = await startBuiltService('node', { CAPTURE_API_KEYS: `${KEY}:ENTERPRISE`, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_CONCURRENCY: '1', CAPTURE_MAX_QUEUE: '0' });
    try {
      const get = (query: string): Promise<Response> => fetch(`${queueless.origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid?color=%2300ff00'))}&${query}`, { headers: { 'X-API-Key': KEY } });
      expect((await get('viewport_width=100&viewport_height=100')).status).toBe(200);
      const loaded = fixtures.hits('/solid');
      const slow = get('delay=1500');
      await until(() => fixtures.hits('/solid') > loaded, 'the slow capture to load its page');
      expect((await get('viewport_width=100&viewport_height=100')).status).toBe(503);
      expect((await slow).status).toBe(200);
    } finally {
      await queueless.stop();
    }
  });

  it('SIGTERM during a busy video exits within the capture\'s budget + 15 s, leaving no process, profile or artifacts behind', async () => {
    const tree = (): number[] => processTree(service.child.pid as number);
    const running = capture({ url: fixtures.url('/spin-later'), format: 'mp4', scenario: 'record', duration: '2' }).then((r) => r.status, () => 'gone');
    await until(() => fixtures.hits('/spin-later') >= 2, 'the video to load its page');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const processes = tree();
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(VIDEO_BUDGET_MS + 15_000);
    expect(await running).not.toBe(500);
    // Chromium's helpers exit right after the browser: within a moment, none is left.
    await until(() => processes.filter(isRunning).length === 0, 'the service\'s processes to exit', 5000);
    const left = readdirSync(path.join(tmp, 'capture-engine'));
    expect(left.filter((name) => name.startsWith('profile-'))).toEqual([]);
    expect(readdirSync(tmp).filter((name) => name.startsWith('playwright-artifacts-'))).toEqual([]);
  });
});
