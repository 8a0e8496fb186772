import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorLinkCredentials, renderLink } from '../../src/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode } from '../helpers/pixels.js';
import { startService, type ServiceUnderTest } from '../ops/service-under-test.js';

const KEY = randomBytes(32).toString('hex');
let fixtures: FixtureServer;
let lenient: ServiceUnderTest;
let strict: ServiceUnderTest;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  // A body of 10,000 names is larger than the default 64 KiB.
  lenient = await startService({}, { apiKeys: [{ key: KEY, tier: 'PRO' }], bodyLimit: 2 ** 20 });
  strict = await startService({}, { apiKeys: [{ key: KEY, tier: 'PRO' }], strictParams: true });
});
afterAll(async () => {
  await lenient?.close();
  await strict?.close();
  await fixtures?.close();
});

const capture = (service: ServiceUnderTest, query: string, init: RequestInit = {}): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${query}`, { ...init, headers: { 'X-API-Key': KEY, ...init.headers } });
const solid = (): string => `url=${encodeURIComponent(fixtures.url('/solid'))}`;

// Issue 50, item 5: `viewport_widht=300` gave a 1920-wide image and `tier=ENTERPRISE` a 200, silently.
describe('unknown parameter names over HTTP', () => {
  it('are answered with Capture-Warning and, in JSON, warnings, naming the closest known name', async () => {
    const image = await capture(lenient, `${solid()}&viewport_widht=300&viewport_height=100&tier=ENTERPRISE`);
    expect(image.status).toBe(200);
    expect(image.headers.get('capture-warning')).toBe('unknown parameter "viewport_widht" ignored (did you mean "viewport_width"?); unknown parameter "tier" ignored');
    expect((await decode(Buffer.from(await image.arrayBuffer()))).width).toBe(1920);
    const described = await capture(lenient, `${solid()}&viewport_height=100&response_type=json&Full_Page=true`);
    const body = (await described.json()) as { warnings: string[]; format: string };
    expect(body.format).toBe('PNG');
    expect(body.warnings).toEqual(['unknown parameter "Full_Page" ignored (did you mean "full_page"?)']);
    // A failed request too: the misspelt name is often why.
    const failed = await capture(lenient, `ulr=${encodeURIComponent(fixtures.url('/solid'))}`);
    expect(failed.status).toBe(400);
    expect(((await failed.json()) as { warnings: string[] }).warnings).toEqual(['unknown parameter "ulr" ignored (did you mean "url"?)']);
  });

  it('leave out the names a request legitimately carries: the key, strict, a render link\'s own', async () => {
    const plain = await fetch(`${lenient.origin}/api/v1/capture?${solid()}&viewport_width=200&viewport_height=100&api_key=${KEY}&strict=false`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('capture-warning')).toBeNull();
    const link = renderLink({ baseUrl: lenient.origin, ...operatorLinkCredentials(KEY), params: { url: fixtures.url('/solid'), viewport_width: 200, viewport_height: 100 }, expiresIn: 600 });
    const rendered = await fetch(link);
    expect(rendered.status).toBe(200);
    expect(rendered.headers.get('capture-warning')).toBeNull();
  });

  it('are refused naming the parameter with strict=true, or with the service\'s strictParams', async () => {
    const refused = await capture(lenient, `${solid()}&viewport_widht=300&strict=true`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'viewport_widht', suggestion: 'viewport_width', unknown: ['viewport_widht'] });
    const byService = await capture(strict, `${solid()}&viewport_height=100&tier=ENTERPRISE`);
    expect(byService.status).toBe(400);
    expect(await byService.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'tier' });
    const relaxed = await capture(strict, `${solid()}&viewport_width=200&viewport_height=100&tier=ENTERPRISE&strict=false`);
    expect(relaxed.status).toBe(200);
    expect(relaxed.headers.get('capture-warning')).toContain('"tier"');
    const unclear = await capture(lenient, `${solid()}&strict=maybe`);
    expect(await unclear.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'strict' });
  });

  it('name at most ten of 10,000, in printable ASCII, and count the rest', async () => {
    const form = new URLSearchParams(Array.from({ length: 10_000 }, (_, i) => [`name_${i}\r\nX-Injected: ${'é'.repeat(i % 3)}`, '1']));
    const response = await capture(lenient, '', { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(400);
    const header = response.headers.get('capture-warning') as string;
    expect(header.length).toBeLessThan(2000);
    expect(header).toMatch(/^unknown parameter "name_0\\r\\nX-Injected: " ignored; /);
    expect(header).toContain('\\u00e9');
    expect(header).toMatch(/; 9990 more unknown parameters ignored$/);
    expect(response.headers.get('x-injected')).toBeNull();
    expect(((await response.json()) as { warnings: string[] }).warnings).toHaveLength(11);
  });
});
