import { createRequire } from 'node:module';
import type * as OpenTelemetry from '@opentelemetry/api';
import type { Attributes, Context, Span, TimeInput, Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry's API, loaded with `require`: it is CommonJS, and an ES `import` makes Node scan it
 * and every module it re-exports for their export names first (benchmarks/cold-start).
 */
const { context, propagation, trace, SpanKind, SpanStatusCode } = createRequire(import.meta.url)('@opentelemetry/api') as typeof OpenTelemetry;
type SpanKind = OpenTelemetry.SpanKind;

/**
 * The engine's tracer. Its spans go through OpenTelemetry's API only: they cost next to nothing and
 * go nowhere until an application registers an SDK (the CLI does when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set), and then they join that application's traces. Asked for at each use, not kept: a tracer
 * kept from before an SDK was unregistered would never reach the next one.
 */
export function tracer(): Tracer {
  return trace.getTracer('capture-engine');
}

export { SpanKind, SpanStatusCode };
export type { Context, Span };

export interface SpanOptions {
  kind?: SpanKind;
  /** The span's parent: by default the active context. */
  parent?: Context;
  /** When the span began, if before now (a wait measured from a recorded time). */
  startTime?: TimeInput;
}

/**
 * Runs `run` in a span that is active for everything it calls and ends when it settles; a
 * failure is recorded on the span and thrown on.
 */
export async function inSpan<T>(name: string, attributes: Attributes, run: (span: Span) => Promise<T> | T, options: SpanOptions = {}): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind, attributes, startTime: options.startTime }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => run(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed, with the catalogue code when the error has one. */
export function recordFailure(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : String(error) });
}

/** The active context. */
export function activeContext(): Context {
  return context.active();
}

/** The context of the W3C `traceparent` (and `tracestate`) among incoming headers; the active one without them. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers, {
    get: (carrier, key) => carrier[key.toLowerCase()],
    keys: (carrier) => Object.keys(carrier),
  });
}

/** Headers that carry the active context to the next service (`traceparent`, `tracestate`); empty when nothing is traced. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}
