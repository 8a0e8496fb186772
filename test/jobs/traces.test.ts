import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { FixtureServer } from '../helpers/fixture-server.js';
import { isBuilt, killLeftoverBuiltProcesses, type BuiltService } from '../helpers/built-service.js';
import { startTracedWorld, type TracedWorld } from '../helpers/traced-world.js';
import { until } from '../helpers/wait.js';

afterAll(killLeftoverBuiltProcesses);

/**
 * Traces across machines: the built service and a built worker, each exporting its spans over
 * OTLP/HTTP (JSON) to a local receiver, as to an OpenTelemetry Collector.
 */
const KEY = 'ce_traces_pro_0123456789abcdefghij';
let fixtures: FixtureServer;
let service: BuiltService;
/** Receives both the webhooks and the OTLP exports (`/v1/traces`). */
let receiver: WebhookReceiver;
let world: TracedWorld | undefined;

beforeAll(async () => {
  world = await startTracedWorld({ key: KEY, name: 'traces', logLevel: 'warn' });
  ({ fixtures, receiver, service } = world);
}, 60_000);
afterAll(() => world?.stop());

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  instance: string;
  role: string;
}

type Attribute = { key: string; value: { stringValue?: string } };
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: Attribute[] }; scopeSpans: Array<{ spans: Array<Omit<ExportedSpan, 'instance' | 'role'>> }> }>;
}

/** Every span exported so far, with the process (`service.instance.id`) and role that made it. */
function exportedSpans(): ExportedSpan[] {
  return receiver.deliveries
    .filter((delivery) => delivery.url === '/v1/traces')
    .flatMap((delivery) => (JSON.parse(delivery.body) as OtlpExport).resourceSpans)
    .flatMap(({ resource, scopeSpans }) => {
      const attribute = (key: string): string => resource.attributes.find((entry) => entry.key === key)?.value.stringValue ?? '';
      return scopeSpans.flatMap(({ spans }) => spans.map((span) => ({ ...span, instance: attribute('service.instance.id'), role: attribute('capture_engine.role') })));
    });
}

describe.skipIf(!isBuilt())('traces', () => {
  it("an async capture is one trace, continuing the caller's traceparent, with spans from the service and the worker, into the webhook", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const response = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: 200, viewport_height: 120, async: true, webhook_url: receiver.url('/hook') }),
    });
    expect(response.status).toBe(202);
    await until(() => receiver.deliveries.some((delivery) => delivery.url === '/hook'), 'the webhook', 30_000);
    const hook = receiver.deliveries.find((delivery) => delivery.url === '/hook');
    // The receiver can continue the trace: the delivery's own span is its parent.
    expect(hook?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const expected = ['POST capture', 'job.wait', 'capture', 'capture.queue', 'capture.navigate', 'capture.settle', 'capture.capture', 'capture.encode', 'capture.store', 'webhook.deliver'];
    const ofTrace = (): ExportedSpan[] => exportedSpans().filter((span) => span.traceId === traceId);
    // Spans are exported in batches as they end: BullMQ's span of the job's run, job.wait's parent,
    // ends after the webhook's and can come in a later batch. Waited for too: a tree whole.
    const whole = (spans: ExportedSpan[]): boolean => {
      const ids = new Set(spans.map((span) => span.spanId));
      return spans.every((span) => span.parentSpanId === callerSpan || ids.has(span.parentSpanId ?? ''));
    };
    await until(() => expected.every((name) => ofTrace().some((span) => span.name === name)) && whole(ofTrace()), 'every span exported, and the parent of each', 15_000);
    const spans = ofTrace();

    // Two processes: the request on the service, the capture and the webhook on the worker.
    const roleOf = (name: string): string[] => [...new Set(spans.filter((span) => span.name === name).map((span) => span.role))];
    expect(new Set(spans.map((span) => span.instance)).size).toBe(2);
    expect(roleOf('POST capture')).toEqual(['service']);
    for (const name of ['job.wait', 'capture', 'capture.navigate', 'capture.store', 'webhook.deliver']) expect(roleOf(name)).toEqual(['worker']);

    // One tree: the request's span is the caller's child, and every other span's parent is in the trace.
    const request = spans.find((span) => span.name === 'POST capture');
    expect(request?.parentSpanId).toBe(callerSpan);
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans.filter((each) => each !== request)) expect(ids.has(span.parentSpanId ?? ''), `${span.name}'s parent is in the trace`).toBe(true);
    // Each phase is a child of its capture.
    const capture = spans.find((span) => span.name === 'capture');
    for (const phase of ['navigate', 'settle', 'capture', 'encode', 'store']) expect(spans.find((span) => span.name === `capture.${phase}`)?.parentSpanId).toBe(capture?.spanId);
    // The webhook's traceparent names the delivery's span.
    expect(hook?.headers.traceparent).toBe(`00-${traceId}-${spans.find((span) => span.name === 'webhook.deliver')?.spanId}-01`);
  }, 60_000);
});
