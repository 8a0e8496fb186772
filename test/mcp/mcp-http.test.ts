import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createCaptureHttp, createCaptureMetrics, type CaptureEngine } from '../../src/index.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';
import { killLeftoverBuiltProcesses, startBuiltService, type BuiltService } from '../helpers/built-service.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { closedPort } from '../helpers/ports.js';
import { MCP_FIXTURES, documentedConfigs, expectCaptureTools, expectMarkdown, expectScreenshot, refusal } from './mcp-checks.js';

// Issue 52: the HTTP service's MCP route, `{base}/v1/mcp`, driven by the SDK's own client on every adapter.
const PRO = 'mcp-pro-key-0123456789abcdefghijklmnopqrstuv';
const FREE = 'mcp-free-key-0123456789abcdefghijklmnopqrstu';
const FREE_PER_MINUTE = 2;

let fixtures: FixtureServer;
let engine: CaptureEngine;

beforeAll(async () => {
  fixtures = await startFixtureServer(MCP_FIXTURES);
  const { port } = new URL(fixtures.origin);
  // The fixtures' port only: every other private address meets the egress guard.
  engine = await createTestEngine({ allowPrivateNetworks: false, allowAddress: [`127.0.0.1:${port}`] });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

/** As docs/mcp.md configures a client: its URL's path on this app, its header with this key. */
async function connect(origin: string, key: string | undefined): Promise<Client> {
  const { type, url = '', headers: documented = {} } = documentedConfigs().http;
  expect([type, Object.keys(documented)]).toEqual(['http', ['X-API-Key']]);
  const headers: Record<string, string> = key === undefined ? {} : { 'X-API-Key': key };
  const client = new Client({ name: 'mcp-http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(new URL(url).pathname, origin), { requestInit: { headers } }));
  return client;
}

describe.each(ADAPTERS)('MCP over Streamable HTTP on %s', (adapter) => {
  let app: RunningApp;
  let pro: Client;
  const metrics = createCaptureMetrics({ defaultMetrics: false });
  beforeAll(async () => {
    // A service of its own per adapter: its own rate limits and metrics.
    const http = createCaptureHttp(engine, { apiKeys: [{ key: PRO, tier: 'PRO' }, { key: FREE, tier: 'FREE' }], tiers: { FREE: { requestsPerMinute: FREE_PER_MINUTE } }, observer: metrics.httpObserver });
    app = await startApp(adapter, http);
    pro = await connect(app.origin, PRO);
  });
  afterAll(async () => {
    await pro?.close();
    await app?.close();
  });

  it('lists the tools, each with the request schema parameters that apply to it', async () => {
    await expectCaptureTools(pro);
  });

  it('answers a screenshot as image content, linking the full-size file the service serves', async () => {
    await expectScreenshot(pro, fixtures.url('/halves'), async (uri) => {
      expect(uri.startsWith(`${app.origin}/api/files/`)).toBe(true);
      const file = await fetch(uri, { headers: { 'X-API-Key': PRO } });
      expect(file.status).toBe(200);
      return Buffer.from(await file.arrayBuffer());
    });
  });

  it('refuses a request without a key: 401 MISSING_API_KEY, and the client cannot connect', async () => {
    const raw = await fetch(new URL(new URL(documentedConfigs().http.url ?? '').pathname, app.origin), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ code: 'MISSING_API_KEY' });
    await expect(connect(app.origin, undefined)).rejects.toThrow(/401|API key/);
  });

  it("applies a FREE key's rate limit to its tool calls", async () => {
    const free = await connect(app.origin, FREE);
    try {
      const call = async (): Promise<CallToolResult> => (await free.callTool({ name: 'screenshot', arguments: { url: fixtures.url('/halves'), viewport_width: 300, viewport_height: 200 } })) as CallToolResult;
      for (let i = 0; i < FREE_PER_MINUTE; i++) expect((await call()).isError).toBeFalsy();
      expect(refusal(await call())).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: FREE_PER_MINUTE });
      // Tool calls are capture requests in the metrics too; the handshake and the listing are not.
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/capture_limiter_rejections_total\{reason="rate"\} 1\n/);
      expect(text).toMatch(/capture_browser_seconds_total\{tier="FREE"\} [\d.]+/);
    } finally {
      await free.close();
    }
  });

  it('answers the markdown tool with the page as Markdown', async () => {
    await expectMarkdown(pro, fixtures.url('/article'));
  });

  it('refuses a private address through the egress guard', async () => {
    const result = (await pro.callTool({ name: 'screenshot', arguments: { url: `http://127.0.0.1:${await closedPort()}/` } })) as CallToolResult;
    expect(refusal(result).code).toBe('URL_NOT_ALLOWED');
  });
});

describe('MCP on the built service (npm start -- --adapter fastify)', () => {
  let service: BuiltService;
  let client: Client;
  beforeAll(async () => {
    const { port } = new URL(fixtures.origin);
    service = await startBuiltService('fastify', { CAPTURE_API_KEYS: `${PRO}:PRO`, CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${port}` });
    client = await connect(service.origin, PRO);
  });
  afterAll(async () => {
    await client?.close();
    await service?.stop();
    await killLeftoverBuiltProcesses();
  });

  it('loads the MCP route from the bundle and answers a screenshot under the egress guard', async () => {
    await expectCaptureTools(client);
    await expectScreenshot(client, fixtures.url('/halves'), async (uri) => Buffer.from(await (await fetch(uri)).arrayBuffer()));
    const result = (await client.callTool({ name: 'screenshot', arguments: { url: `http://127.0.0.1:${await closedPort()}/` } })) as CallToolResult;
    expect(refusal(result).code).toBe('URL_NOT_ALLOWED');
  });
});
