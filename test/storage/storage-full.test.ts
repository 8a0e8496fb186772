import { createCaptureHttp } from '../../src/index.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';

/** A real full disk: the storage directory is a 64 KiB tmpfs (needs root, as CI runs). */
const dir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-full-'));
const mounted = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const KEY = 'ce_storage_full_0123456789abcdef';
let fixtures: FixtureServer;
let engine: CaptureEngine;
let app: RunningApp;

beforeAll(async () => {
  if (!mounted) return;
  fixtures = await startFixtureServer({
    // Random pixels do not compress: the PNG is far larger than the disk.
    '/noise': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0"><canvas id="c" width="600" height="600"></canvas><script>
        const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(600, 600);
        for (let i = 0; i < img.data.length; i++) img.data[i] = (Math.random() * 256) | 0; c.putImageData(img, 0, 0);
      </script></body>`),
  });
  engine = await createTestEngine({ storageDir: dir });
  app = await startApp('koa', createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'PRO' }] }));
});
afterAll(async () => {
  await app?.close();
  await engine?.close();
  await fixtures?.close();
  if (mounted) execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!mounted)('disk full while storing', () => {
  it('answers 500 without a partial file and refunds the quota', async () => {
    const url = `${app.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/noise'), response_type: 'json', viewport_width: '600', viewport_height: '600' })}`;
    const before = await fetch(`${app.origin}/api/v1/capture?viewport_width=1`, { headers: { 'X-API-Key': KEY } });
    const response = await fetch(url, { headers: { 'X-API-Key': KEY } });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'Internal error', code: 'INTERNAL_ERROR', request_id: response.headers.get('x-request-id') });
    expect(response.headers.get('x-quota-remaining')).toBe(before.headers.get('x-quota-remaining'));
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files).toEqual([]);
  });

  it('still stores what fits afterwards', async () => {
    const response = await fetch(`${app.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/solid'), response_type: 'json', viewport_width: '100', viewport_height: '100' })}`, {
      headers: { 'X-API-Key': KEY },
    });
    expect(response.status).toBe(200);
    const { url } = (await response.json()) as { url: string };
    expect((await fetch(`${app.origin}${url}`)).status).toBe(200);
  });
});
