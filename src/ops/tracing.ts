import { hostname } from 'node:os';

/** Flushes the spans still buffered and stops exporting. */
export type StopTracing = () => Promise<void>;

/**
 * Exports this process's spans over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, as OpenTelemetry's own SDK reads it; otherwise
 * does nothing and loads nothing. The SDK packages are optional peers, loaded only here: an
 * application with its own SDK registers it itself and the engine's spans join it.
 * `OTEL_SERVICE_NAME` names the service (default `capture-engine`); each process is an instance of
 * it (`service.instance.id`), so a trace shows which machine ran which part. Reads the process's
 * environment, as the exporter does.
 */
export async function startTracing(role: string): Promise<StopTracing | undefined> {
  const { env } = process;
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const missing = (error: unknown): never => {
    throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is not installed: npm install @opentelemetry/sdk-trace @opentelemetry/context-async-hooks @opentelemetry/core @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http (${String(error)})`);
  };
  const [api, sdk, contexts, core, resources, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]).catch(missing);
  // OTEL_RESOURCE_ATTRIBUTES adds to what the service says of itself.
  const resource = resources.defaultResource().merge(resources.detectResources({ detectors: [resources.envDetector] })).merge(
    resources.resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? 'capture-engine',
      'service.instance.id': `${hostname()}/${process.pid}`,
      'capture_engine.role': role,
    }),
  );
  // The exporter reads the other OTEL_EXPORTER_OTLP_* settings (headers, timeout, certificates) itself.
  const exporter = new otlp.OTLPTraceExporter();
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const processor = new sdk.BatchSpanProcessor({ exporter, ...(Number.isInteger(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}) });
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [processor] });
  api.context.setGlobalContextManager(new contexts.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return async () => {
    await provider.shutdown();
    // The process's globals go back to OpenTelemetry's no-op ones.
    api.trace.disable();
    api.context.disable();
    api.propagation.disable();
  };
}
