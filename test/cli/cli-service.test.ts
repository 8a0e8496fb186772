import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { closedPort } from '../helpers/ports.js';
import { chromiumChildren, isAlive } from '../helpers/processes.js';
import { BUILT_CLI, isBuilt, startBuiltService, type BuiltService, killLeftoverBuiltProcesses } from '../helpers/built-service.js';
import { decode, near } from '../helpers/pixels.js';
import { until } from '../helpers/wait.js';
import { startS3rver } from '../helpers/s3rver.js';

// A test that fails before stopping its service leaves it running: kill what is left.
afterAll(killLeftoverBuiltProcesses);

/** The service as `npm start` runs it: built CLI, real port, keys from the environment. */
const cli = BUILT_CLI;
const KEY = 'ce_cli_test_0123456789abcdefghij';
let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => fixtures?.close());

function startService(adapter: string, env: Record<string, string> = {}): Promise<BuiltService> {
  return startBuiltService(adapter, { CAPTURE_API_KEYS: `${KEY}:PRO`, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', ...env });
}

describe.skipIf(!isBuilt())('the service (npm start)', () => {
  // One service per adapter for both: starting one costs seconds.
  it.each(['node', 'express', 'fastify', 'koa'])('on %s: /healthz, /readyz and Prometheus metrics; SIGTERM finishes the running capture, refuses new ones and exits cleanly', async (adapter) => {
    const metricsPort = await closedPort();
    const { child, origin, output } = await startService(adapter, { CAPTURE_METRICS_PORT: String(metricsPort) });
    expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${origin}/readyz`)).json()).toEqual({ status: 'ready' });
    const shot = await fetch(`${origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}&viewport_width=200&viewport_height=200`, { headers: { 'X-API-Key': KEY } });
    expect(shot.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toContain('capture_requests_total{code="OK",format="png",scenario="static"} 1');

    const browsers = chromiumChildren(child.pid as number);
    expect(browsers.length).toBeGreaterThan(0);
    const loaded = fixtures.hits('/solid');
    const running = fetch(`${origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}&delay=2000&viewport_width=200&viewport_height=200`, {
      headers: { 'X-API-Key': KEY },
    });
    // SIGTERM once the capture runs (its page was fetched), new requests once the service drains.
    await until(() => fixtures.hits('/solid') > loaded, 'the capture to load its page');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await until(() => output().includes('shutting down'), 'the service to start draining');
    // New work is refused: the listener is closed, and a kept-alive connection gets 503.
    const refused = await fetch(`${origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}`, { headers: { 'X-API-Key': KEY } }).then((r) => r.status, () => 'refused');
    expect([503, 'refused']).toContain(refused);
    const response = await running;
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(await exited).toBe(0);
    expect(output()).not.toContain(KEY);
    expect(browsers.filter(isAlive)).toEqual([]);
  });

  it('accepts keys made with `capture-engine keys` and refuses them once revoked, without a restart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-cli-keys-'));
    const env = { ...process.env, CAPTURE_KEYS_FILE: path.join(dir, 'keys.json') };
    const cliRun = (...args: string[]): string => execFileSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' });
    const [made = '', signingSecret] = cliRun('keys', 'create', '--tier', 'PRO', '--name', 'ci').trim().split('\n');
    expect(signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const prefix = made.slice(0, 'ce_'.length + 8); // 48 random bits, base64url: may hold '_' itself
    const { child, origin } = await startService('node', { CAPTURE_KEYS_FILE: env.CAPTURE_KEYS_FILE });
    try {
      const shoot = (): Promise<number> => fetch(`${origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}&viewport_width=100&viewport_height=100`, { headers: { 'X-API-Key': made } }).then((r) => r.status);
      expect(await shoot()).toBe(200);
      expect(cliRun('keys', 'list')).toMatch(new RegExp(`^${prefix}\\tci\\tPRO\\t`, 'm'));
      expect(cliRun('keys', 'list')).not.toContain(made);
      cliRun('keys', 'revoke', prefix);
      await until(async () => (await shoot()) === 401, 'the revocation to reach the running service');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores in S3 with CAPTURE_S3_* and reports the bucket in /readyz', async () => {
    const s3 = await startS3rver();
    const { child, origin } = await startService('node', {
      CAPTURE_S3_BUCKET: s3.bucket,
      CAPTURE_S3_ENDPOINT: s3.endpoint,
      CAPTURE_S3_REGION: s3.connection.region,
      CAPTURE_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    });
    try {
      const stored = await fetch(`${origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}&viewport_width=100&viewport_height=100&response_type=json`, { headers: { 'X-API-Key': KEY } });
      const body = (await stored.json()) as { url: string; size: number };
      expect(stored.status).toBe(200);
      expect(await s3.keys()).toHaveLength(1);
      const file = await fetch(`${origin}${body.url}`);
      expect([file.status, (await file.arrayBuffer()).byteLength]).toEqual([200, body.size]);
      expect((await fetch(`${origin}/readyz`)).status).toBe(200);
      await s3.close();
      const ready = await fetch(`${origin}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'not ready', failing: ['storage'] });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await s3.close().catch(() => undefined);
    }
  });

  it('SIGTERM while Chromium starts closes it and leaves no profile behind', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-cli-'));
    // As root the service runs Chromium as another user, who must be able to pass through.
    chmodSync(tmp, 0o711);
    try {
      const child = spawn(process.execPath, [cli, 'serve', '--port', String(await closedPort()), '--host', '127.0.0.1'], {
        env: { ...process.env, TMPDIR: tmp, CAPTURE_API_KEYS: `${KEY}:PRO` },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let browsers: number[] = [];
      for (let i = 0; i < 200 && browsers.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        browsers = chromiumChildren(child.pid as number);
      }
      expect(browsers.length).toBeGreaterThan(0);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(browsers.filter(isAlive)).toEqual([]);
      expect(readdirSync(path.join(tmp, 'capture-engine')).filter((name) => name.startsWith('profile-'))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!isBuilt())('capture-engine shot', () => {
  it('writes captures to files without a server: every parameter of the schema as a flag, @file values, several shots from one file with one engine', async () => {
    const outputDir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-shot-'));
    const run = (args: string[]): Promise<{ code: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [cli, 'shot', ...args], { env: { ...process.env, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.once('exit', (code) => resolve({ code, out }));
      });
    try {
      const help = await run(['--help']);
      expect(help.code).toBe(0);
      for (const flag of ['--device-scale-factor', '--image-fit', '--block-resources', '--pdf-margin-top']) expect(help.out).toContain(flag);
      const style = path.join(outputDir, 'style.css');
      writeFileSync(style, 'body { background: #0000ff !important; }');
      // shot-scraper's multi format: YAML, `width` and `height` for the viewport.
      const shots = path.join(outputDir, 'shots.yml');
      writeFileSync(shots, [
        `- output: ${path.join(outputDir, 'a.png')}`,
        `  url: "${fixtures.url('/solid?color=%2300ff00')}"`,
        '  width: 200',
        '  height: 100',
        '  device_scale_factor: 2',
        `- output: ${path.join(outputDir, 'b.pdf')}`,
        `  url: ${fixtures.url('/solid')}`,
        '  format: pdf',
        `- output: ${path.join(outputDir, 'c.png')}`,
        '  html: \'<body style="margin:0;background:#ff0000"></body>\'',
        '  width: 240',
        '  height: 160',
      ].join('\n'));
      const flags = await run([fixtures.url('/solid?color=%2300ff00'), '-o', path.join(outputDir, 'flags.jpg'), '--format', 'jpg', '--width', '300', '--height', '200', '--image-width', '150', '--full-page', '--styles', `@${style}`]);
      expect(flags.code, flags.out).toBe(0);
      expect(readFileSync(path.join(outputDir, 'flags.jpg')).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      const resized = await decode(readFileSync(path.join(outputDir, 'flags.jpg')));
      expect([resized.width, resized.height]).toEqual([150, 100]);
      expect(near(resized.at(75, 50), '#0000ff')).toBe(true);
      const multi = await run(['--multi', shots]);
      expect(multi.code, multi.out).toBe(0);
      const a = await decode(readFileSync(path.join(outputDir, 'a.png')));
      expect([a.width, a.height]).toEqual([400, 200]);
      expect(readFileSync(path.join(outputDir, 'b.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
      const c = await decode(readFileSync(path.join(outputDir, 'c.png')));
      expect([c.width, c.height]).toEqual([240, 160]);
      expect(near(c.at(120, 80), '#ff0000')).toBe(true);
      const unknown = await run(['--no-such-thing', 'x']);
      expect(unknown.code).not.toBe(0);
      expect(unknown.out).toContain('--no-such-thing');
    } finally {
      rmSync(outputDir, { recursive: true, force: true });
    }
  });
});
