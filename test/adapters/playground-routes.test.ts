import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';

/**
 * Where the playground is served: nowhere in an app that mounts the service unless asked
 * (`playground: true` at `{basePath}/playground`), at `/` as well with `'root'`, as `npm start` does.
 * What it shows is the business of test/playground/playground.test.ts.
 */
let engine: CaptureEngine;
const apps: RunningApp[] = [];

beforeAll(async () => {
  engine = await createTestEngine();
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await engine?.close();
});

async function mounted(adapter: (typeof ADAPTERS)[number], options: Parameters<typeof createCaptureHttp>[1]): Promise<string> {
  const app = await startApp(adapter, createCaptureHttp(engine, options));
  apps.push(app);
  return app.origin;
}

describe.each(ADAPTERS)('the playground mounted with %s', (adapter) => {
  it('is not served unless asked for, and the app keeps its own routes', async () => {
    const origin = await mounted(adapter, {});
    expect((await fetch(`${origin}/api/playground`)).status).toBe(404);
    expect((await fetch(`${origin}/api/playground/playground.js`)).status).toBe(404);
    expect(await (await fetch(`${origin}/health`)).text()).toBe('ok');
  });

  it('with playground: true, serves the page under basePath and its assets by digest, and nothing at the root', async () => {
    const origin = await mounted(adapter, { playground: true });
    const page = await fetch(`${origin}/api/playground`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('data-openapi="/api/v1/openapi.json"');
    const script = /src="(\/api\/playground\/playground\.js\?v=[\w-]+)"/.exec(html)?.[1] as string;
    const first = await fetch(`${origin}${script}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('cache-control')).toContain('immutable');
    expect((await first.text()).length).toBeGreaterThan(1000);
    const etag = first.headers.get('etag') as string;
    expect(script.endsWith(`v=${etag.slice(1, -1)}`)).toBe(true);
    const again = await fetch(`${origin}${script}`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const missing = await fetch(`${origin}/api/playground/secrets.json`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('NOT_FOUND');
    const posted = await fetch(`${origin}/api/playground`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect(await (await fetch(`${origin}/health`)).text()).toBe('ok');
  });
});

describe("playground: 'root'", () => {
  it('serves the page at / too, with its assets under a basePath of its own', async () => {
    const origin = await mounted('node', { playground: 'root', basePath: '/shots' });
    const html = await (await fetch(`${origin}/`)).text();
    expect(html).toContain('data-base-path="/shots"');
    const style = /href="(\/shots\/playground\/playground\.css\?v=[\w-]+)"/.exec(html)?.[1] as string;
    const css = await fetch(`${origin}${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await (await fetch(`${origin}/shots/playground`)).text()).toBe(html);
  });
});
