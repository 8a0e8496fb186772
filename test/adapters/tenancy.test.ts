import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderLink } from '../../src/index.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { decode, MAGIC } from '../helpers/pixels.js';
import { until } from '../helpers/wait.js';
import { keysCli, type Account } from '../helpers/key-cli.js';

// Issue 47: what one tenant, or a stranger, could do to another through the service as `npm start` runs it.
afterAll(killLeftoverBuiltProcesses);


let fixtures: FixtureServer;
let redis: TestRedis;
let dir: string;
let keysFile: string;
let cli: ReturnType<typeof keysCli>['cli'];
let createKey: ReturnType<typeof keysCli>['createKey'];
let service: BuiltService;
/** Made before the service starts: a key file is read again only when it changes (polled). */
const accounts: Record<string, Account> = {};



/** Resident memory of the service's own process (not its browser), in MiB. */
function serviceRssMb(): number {
  const status = readFileSync(`/proc/${service.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

async function redisUsedBytes(): Promise<number> {
  const info = await redis.client().info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Random pixels do not compress: a full-page PNG of tens of MB.
    '/noise': (_req, res) =>
      html(
        res,
        `<body style="margin:0"><canvas id="c" width="1600" height="2400"></canvas><script>
          const c = document.getElementById('c').getContext('2d'); const d = c.createImageData(1600, 2400);
          for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256;
          c.putImageData(d, 0, 0);
        </script></body>`,
      ),
  });
  redis = await startRedis();
  dir = mkdtempSync(path.join(inject('testTempRoot'), 'tenancy-'));
  keysFile = path.join(dir, 'keys.json');
  ({ cli, createKey } = keysCli(keysFile));
  for (const [name, tier] of Object.entries({ owner1: 'PRO', other1: 'PRO', idem: 'FREE', owner4: 'FREE', markdown: 'PRO', owner7: 'PRO', stranger7: 'PRO' })) accounts[name] = await createKey(tier);
  service = await startBuiltService(
    'node',
    {
      CAPTURE_KEYS_FILE: keysFile,
      CAPTURE_REDIS_URL: redis.url,
      CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${new URL(fixtures.url('/')).port}`,
      CAPTURE_LOG_LEVEL: 'warn',
      CAPTURE_PLAYGROUND: 'false',
    },
    ['--storage-dir', path.join(dir, 'files')],
  );
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await redis?.stop();
  await fixtures?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!isBuilt())('tenants and strangers (issue 47, on the built service)', () => {
  const api = (query: Record<string, string>, key: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${service.origin}/api/v1/capture?${new URLSearchParams(query)}`, { ...init, headers: { 'X-API-Key': key, ...init.headers } });
  const solid = (color: string): string => fixtures.url(`/solid?color=${encodeURIComponent(color)}`);

  it('item 1: another tenant asking /v1/capture with the query of a render link leaves the link cached', async () => {
    const [owner, other] = [accounts.owner1 as Account, accounts.other1 as Account];
    const link = renderLink({ baseUrl: service.origin, key: owner.id, signingSecret: owner.signingSecret, params: { url: solid('#3366cc'), viewport_width: 300, viewport_height: 200 } });
    const foreign = await fetch(`${service.origin}/api/v1/capture${new URL(link).search}`, { headers: { 'X-API-Key': other.key } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('cache-control')).toBe('no-store');
    await foreign.arrayBuffer();
    const first = await fetch(link);
    expect([first.status, first.headers.get('x-cache')]).toEqual([200, 'MISS']);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=/);
    await first.arrayBuffer();
    const second = await fetch(link);
    expect([second.status, second.headers.get('x-cache')]).toEqual([200, 'HIT']);
    const quota = Number(second.headers.get('x-quota-remaining'));
    await second.arrayBuffer();
    const third = await fetch(link);
    expect(third.headers.get('x-cache')).toBe('HIT');
    expect(Number(third.headers.get('x-quota-remaining'))).toBe(quota);
    await third.arrayBuffer();
  });

  it('item 2: an idempotent 20 MB answer grows Redis by under 2 MB, and is replayed byte for byte', async () => {
    const account = accounts.idem as Account;
    const before = await redisUsedBytes();
    const post = (): Promise<Response> =>
      fetch(`${service.origin}/api/v1/capture`, {
        method: 'POST',
        headers: { 'X-API-Key': account.key, 'Content-Type': 'application/json', 'Idempotency-Key': 'big-noise-1' },
        body: JSON.stringify({ url: fixtures.url('/noise'), viewport_width: 1600, viewport_height: 900, full_page: true }),
      });
    const first = await post();
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(first.status).toBe(200);
    expect(bytes.subarray(0, 8)).toEqual(MAGIC.png);
    expect(bytes.length).toBeGreaterThan(10 * 2 ** 20);
    const grown = (await redisUsedBytes()) - before;
    expect(grown).toBeLessThan(2 * 2 ** 20);
    const replayed = await post();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await replayed.arrayBuffer()).equals(bytes)).toBe(true);
    // The replay's file is never served by the files route.
    const keys = await redis.client().keys('capture-engine:idempotency:*');
    const records = await Promise.all(keys.map((key) => redis.client().get(key).catch(() => null)));
    const file = records.map((text) => text && (JSON.parse(text) as { answer?: { file?: string } }).answer?.file).find(Boolean) as string;
    expect(file).toMatch(/^replays\//);
    expect((await fetch(`${service.origin}/api/files/${file}`)).status).toBe(404);
  });

  it('item 3: eight keyless 48 MB uploads are refused before their bodies are read; RSS grows by under 100 MB', async () => {
    const rssBefore = serviceRssMb();
    const size = 48 * 2 ** 20;
    const boundary = 'tenancyboundary';
    // The answer, and whether the connection was still there for more of the body after it: a
    // service that closes a socket with unread bytes sends a reset, which can destroy its answer.
    const upload = (): Promise<{ answer: string; reset: boolean }> =>
      new Promise((resolve) => {
        const socket = connect(Number(new URL(service.origin).port), '127.0.0.1');
        let answer = '';
        let reset = false;
        socket.on('data', (chunk) => {
          const first = !answer.includes('\r\n\r\n');
          answer += chunk.toString('latin1');
          if (first && answer.includes('\r\n\r\n')) {
            socket.write('y'.repeat(2 ** 20));
            setTimeout(() => socket.destroy(), 300);
          }
        });
        socket.on('error', () => (reset = true));
        socket.on('close', () => resolve({ answer, reset }));
        socket.write(`POST /api/v1/capture HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${size}\r\n\r\n`);
        // One MiB of the 48: the answer must come without the rest.
        socket.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="index.html"\r\n\r\n${'x'.repeat(2 ** 20)}`);
      });
    const answers = await Promise.all(Array.from({ length: 8 }, upload));
    for (const { answer, reset } of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(reset).toBe(false);
    }
    expect(serviceRssMb() - rssBefore).toBeLessThan(100);
  });

  it('item 3: a refused body is drained after its answer for 5 s at most, then the connection is cut', async () => {
    const socket = connect(Number(new URL(service.origin).port), '127.0.0.1');
    const boundary = 'lingerboundary';
    const started = performance.now();
    const cut = new Promise<number>((resolve) => {
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(performance.now() - started));
    });
    socket.write(`POST /api/v1/capture HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${2 ** 40}\r\n\r\n--${boundary}\r\n`);
    // A slow stranger: 64 KiB every 50 ms, for ever.
    const drip = setInterval(() => socket.write(Buffer.alloc(64 * 1024, 120)), 50);
    const lasted = await cut;
    clearInterval(drip);
    expect(lasted).toBeGreaterThan(4_000);
    expect(lasted).toBeLessThan(8_000);
  });

  it('item 3: a keyed upload of 40 MB goes to disk as it arrives: RSS grows by under 60 MB, the page shows its image, no file is left', async () => {
    const account = accounts.markdown as Account;
    const form = new FormData();
    form.set('viewport_width', '200');
    form.set('viewport_height', '100');
    form.append('files', new Blob(['<body style="margin:0"><img src="images/red.svg" style="width:200px;height:100px;display:block"></body>'], { type: 'text/html' }), 'index.html');
    form.append('files', new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#ff0000"/></svg>']), 'images/red.svg');
    for (let i = 0; i < 4; i++) form.append('files', new Blob([Buffer.alloc(10 * 10 ** 6, i)]), `filler/${i}.bin`);
    const uploadDirs = (): string[] => readdirSync(os.tmpdir()).filter((name) => name.startsWith('capture-upload-'));
    const dirsBefore = uploadDirs();
    const rssBefore = serviceRssMb();
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, serviceRssMb())), 20);
    const shot = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': account.key }, body: form });
    clearInterval(sampler);
    const image = await decode(Buffer.from(await shot.arrayBuffer()));
    expect(shot.status).toBe(200);
    expect(image.at(100, 50)).toEqual([255, 0, 0]);
    expect(peak - rssBefore).toBeLessThan(60);
    expect(uploadDirs().filter((name) => !dirsBefore.includes(name))).toEqual([]);
  });

  it('item 4: 25 fetches of a FREE link by strangers in a minute leave its owner\'s API calls answered', async () => {
    const owner = accounts.owner4 as Account;
    const link = renderLink({ baseUrl: service.origin, key: owner.id, signingSecret: owner.signingSecret, params: { url: solid('#22aa44'), viewport_width: 300, viewport_height: 200 } });
    for (let i = 0; i < 25; i++) {
      const fetched = await fetch(link);
      expect(fetched.status).toBe(200);
      await fetched.arrayBuffer();
    }
    const own = await api({ url: solid('#22aa44'), viewport_width: '300', viewport_height: '200' }, owner.key);
    expect(own.status).toBe(200);
    expect(Number(own.headers.get('x-ratelimit-remaining'))).toBe(19);
    await own.arrayBuffer();
  });

  it('item 5: 2 MB of Markdown converts off the event loop; a refused upload_url answers before any conversion, and costs nothing', async () => {
    const account = accounts.markdown as Account;
    const markdown = '# Heading\n\nSome *text* with `code` and a [link](https://example.com).\n\n```js\nconst a = [1, 2, 3].map((x) => x * 2);\n```\n\n'.repeat(17_000);
    expect(markdown.length).toBeGreaterThan(2 * 10 ** 6);
    const form = (extra: Record<string, string> = {}): FormData => {
      const body = new FormData();
      body.set('markdown', markdown);
      body.set('viewport_width', '400');
      body.set('viewport_height', '300');
      for (const [name, value] of Object.entries(extra)) body.set(name, value);
      return body;
    };
    const quota = async (): Promise<number> => {
      const answer = await fetch(`${service.origin}/api/v1/captures/none`, { headers: { 'X-API-Key': account.key } });
      await answer.arrayBuffer();
      return Number(answer.headers.get('x-quota-remaining'));
    };
    const quotaBefore = await quota();
    const started = performance.now();
    const refused = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': account.key }, body: form({ upload_url: 'http://169.254.169.254/latest/meta-data/x.png' }) });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await quota()).toBe(quotaBefore);

    let slowest = 0;
    let converting = true;
    const probes = (async () => {
      while (converting) {
        const asked = performance.now();
        await (await fetch(`${service.origin}/healthz`)).arrayBuffer();
        slowest = Math.max(slowest, performance.now() - asked);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const shot = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers: { 'X-API-Key': account.key }, body: form() });
    converting = false;
    await probes;
    const bytes = Buffer.from(await shot.arrayBuffer());
    expect(shot.status, bytes.toString().slice(0, 200)).toBe(200);
    expect((await decode(bytes)).width).toBe(400);
    expect(slowest).toBeLessThan(300);
  });

  it('item 7: a cached file is served to its owner\'s key only, and revoking the key or rotating its secret ends every way to it', async () => {
    const owner = accounts.owner7 as Account;
    const stranger = accounts.stranger7 as Account;
    const params = { url: solid('#aa2266'), viewport_width: '300', viewport_height: '200', cache: 'true', response_type: 'json' };
    const described = await api(params, owner.key);
    const { url } = (await described.json()) as { url: string };
    expect(url).toMatch(/^\/api\/files\/cache\//);
    const file = `${service.origin}${url}`;
    expect((await fetch(file, { headers: { 'X-API-Key': owner.key } })).status).toBe(200);
    expect((await fetch(file)).status).toBe(404);
    expect((await fetch(file, { headers: { 'X-API-Key': stranger.key } })).status).toBe(404);

    // A render link's answer names the capture, which is no path to its file.
    const link = renderLink({ baseUrl: service.origin, key: owner.id, signingSecret: owner.signingSecret, params: { url: solid('#aa2266'), viewport_width: 300, viewport_height: 200 } });
    const linked = await fetch(link);
    expect([linked.status, linked.headers.get('x-cache')]).toEqual([200, 'HIT']);
    await linked.arrayBuffer();
    expect((await fetch(`${service.origin}/api/files/cache/${linked.headers.get('x-capture-id')}.png`)).status).toBe(404);

    await cli('keys', 'rotate-signing', owner.id);
    await until(async () => (await fetch(link)).status === 403, 'the rotated secret to be read');
    // Entries made under the old secret are out of reach: the same request captures again.
    const again = await api({ ...params, response_type: 'image' }, owner.key);
    expect(again.headers.get('x-cache')).toBe('MISS');
    await again.arrayBuffer();

    await cli('keys', 'revoke', owner.id);
    await until(async () => (await fetch(file, { headers: { 'X-API-Key': owner.key } })).status === 404, 'the revocation to be read');
    expect((await api(params, owner.key)).status).toBe(401);
  });
});
