import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, type BuiltService } from '../helpers/built-service.js';
import { startTracedWorld, type TracedWorld } from '../helpers/traced-world.js';
import { until } from '../helpers/wait.js';

afterAll(killLeftoverBuiltProcesses);

/**
 * A request id as Gotenberg's `Gotenberg-Trace` carries one: taken from `X-Request-Id` (or made),
 * echoed on every answer, in the access log, the request's span, an async capture's status and its
 * webhook. The built service and a built worker on a real redis-server, exporting spans over OTLP.
 */
const KEY = 'ce_reqid_pro_0123456789abcdefghijk';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let fixtures: FixtureServer;
let service: BuiltService;
/** Receives the webhooks and the OTLP exports (`/v1/traces`). */
let receiver: WebhookReceiver;
let world: TracedWorld | undefined;

beforeAll(async () => {
  world = await startTracedWorld({ key: KEY, name: 'reqid', logLevel: 'info' });
  ({ fixtures, receiver, service } = world);
}, 60_000);
afterAll(() => world?.stop());

const capture = (query: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: '200', viewport_height: '120', ...query })}`, { headers: { 'X-API-Key': KEY, ...headers } });

type Attribute = { key: string; value: { stringValue?: string; arrayValue?: { values: { stringValue?: string }[] } } };
interface OtlpExport {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; attributes: Attribute[] }> }> }>;
}

/** The request ids on the exported spans named `name`. */
function spanRequestIds(name: string): string[] {
  return receiver.deliveries
    .filter((delivery) => delivery.url === '/v1/traces')
    .flatMap((delivery) => (JSON.parse(delivery.body) as OtlpExport).resourceSpans.flatMap(({ scopeSpans }) => scopeSpans.flatMap(({ spans }) => spans)))
    .filter((span) => span.name === name)
    .flatMap((span) => span.attributes.filter((attribute) => attribute.key === 'http.request.header.x-request-id').flatMap((attribute) => attribute.value.arrayValue?.values.map((value) => value.stringValue ?? '') ?? []));
}

describe.skipIf(!isBuilt())('X-Request-Id', () => {
  it('echoes the caller\'s id on a capture and on an error, and logs it in the access log line', async () => {
    const shot = await capture({}, { 'X-Request-Id': 'gotenberg-trace-1' });
    expect([shot.status, shot.headers.get('x-request-id')]).toEqual([200, 'gotenberg-trace-1']);
    const refused = await fetch(`${service.origin}/api/v1/capture?url=x`, { headers: { 'X-Request-Id': 'refused-2' } });
    expect([refused.status, refused.headers.get('x-request-id')]).toEqual([401, 'refused-2']);
    await until(() => service.output().includes('"requestId":"refused-2"'), 'the access log line', 5_000);
    const line = service.output().split('\n').find((entry) => entry.includes('"requestId":"gotenberg-trace-1"'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ message: 'request', status: 200, requestId: 'gotenberg-trace-1' });
  });

  it('makes its own id when none comes, or one that is too long or would forge a log line', async () => {
    for (const sent of [undefined, 'a'.repeat(129), 'x y']) {
      const response = await capture({ format: 'jpg' }, sent === undefined ? {} : { 'X-Request-Id': sent });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toMatch(UUID);
    }
    expect(service.output()).not.toContain('a'.repeat(129));
  });

  it("carries the id into the request's span, the async capture's status and its webhook", async () => {
    const queued = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', 'X-Request-Id': 'async-3' },
      body: JSON.stringify({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: 200, viewport_height: 120, async: true, webhook_url: receiver.url('/hook') }),
    });
    expect([queued.status, queued.headers.get('x-request-id')]).toEqual([202, 'async-3']);
    const { status_url } = (await queued.json()) as { status_url: string };
    await until(() => receiver.deliveries.some((delivery) => delivery.url === '/hook'), 'the webhook', 30_000);
    const hook = receiver.deliveries.find((delivery) => delivery.url === '/hook');
    expect(hook?.headers['x-request-id']).toBe('async-3');
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({ status: 'completed', request_id: 'async-3' });
    const status = await fetch(new URL(status_url, service.origin), { headers: { 'X-API-Key': KEY, 'X-Request-Id': 'status-4' } });
    expect([status.headers.get('x-request-id'), ((await status.json()) as { request_id?: string }).request_id]).toEqual(['status-4', 'async-3']);
    await until(() => spanRequestIds('POST capture').includes('async-3'), "the request's span", 15_000);
  }, 60_000);
});
