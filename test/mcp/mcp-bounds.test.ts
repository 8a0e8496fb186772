import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../src/index.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { until } from '../helpers/wait.js';

// Issue 52: what bounds the HTTP service's MCP route, besides the limits of /v1/capture.
const FREE = 'mcp-bounds-free-key-0123456789abcdefghijklmn';
/** At one request a minute: three MCP messages a minute besides tool calls. */
const BASIC = 'mcp-bounds-basic-key-0123456789abcdefghijklm';

let fixtures: FixtureServer;
let engine: CaptureEngine;
let app: RunningApp;
/** Pages held open until the test lets them go, so that their captures stay in flight. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/held': (_req, res) => void held.push(res),
  });
  engine = await createTestEngine();
  // FREE at one capture at once: at most two MCP requests of the key in flight.
  app = await startApp('node', createCaptureHttp(engine, { apiKeys: [{ key: FREE, tier: 'FREE' }, { key: BASIC, tier: 'BASIC' }], tiers: { FREE: { maxConcurrent: 1, requestsPerMinute: 100 }, BASIC: { requestsPerMinute: 1 } } }));
});
afterAll(async () => {
  for (const res of held) if (!res.writableEnded) res.destroy();
  await app?.close();
  await engine?.close();
  await fixtures?.close();
});

const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${app.origin}/api/v1/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': FREE, ...headers }, body });
const screenshotCall = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'screenshot', arguments: { url: fixtures.url('/held'), viewport_width: 300, viewport_height: 200 } } });

describe('the MCP route\'s bounds', () => {
  it('lets a key have twice its tier\'s concurrent captures in flight, and answers 429 past that', async () => {
    const first = post(screenshotCall(1));
    const second = post(screenshotCall(2));
    // One capture of the key at a time: the first holds its page open, the second waits its turn in the fair queue.
    await until(() => held.length === 1 && engine.stats.queued === 1, 'one capture running and one queued');
    const third = await post(screenshotCall(3));
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 2 });
    html(held[0] as ServerResponse, '<body style="background:#00ff00"></body>');
    await until(() => held.length === 2, "the second capture's page");
    html(held[1] as ServerResponse, '<body style="background:#00ff00"></body>');
    for (const answer of await Promise.all([first, second])) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ result: { content: expect.arrayContaining([expect.objectContaining({ type: 'image' })]) } });
    }
  });

  it('counts a key\'s messages besides tool calls: three a minute per request its tier may make, then 429; tool calls are counted as captures', async () => {
    const list = (): Promise<Response> => post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'X-API-Key': BASIC });
    for (let i = 0; i < 3; i++) expect((await list()).status).toBe(200);
    const over = await list();
    expect([over.status, Number(over.headers.get('retry-after')) > 0]).toEqual([429, true]);
    expect(await over.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 3 });
    const call = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'markdown', arguments: { html: '<h1>Still</h1>' } } }), { 'X-API-Key': BASIC });
    expect(await call.json()).toMatchObject({ result: { content: expect.arrayContaining([{ type: 'text', text: '# Still\n' }]) } });
  });

  it('refuses a batch: one JSON-RPC message per request, at most one tool call', async () => {
    const answer = await post(`[${screenshotCall(1)},${screenshotCall(2)}]`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'body' });
  });

  it('refuses a body over the capture route\'s limit, unread', async () => {
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(70 * 1024) } }));
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('keeps no sessions: GET (a stream) and DELETE (a session\'s end) answer 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${app.origin}/api/v1/mcp`, { method, headers: { 'X-API-Key': FREE, Accept: 'text/event-stream' } });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });
});
