export { createCaptureMetrics, type CaptureMetrics } from './metrics.js';
export { startMetricsServer } from './metrics-server.js';
export { startTracing, type StopTracing } from './tracing.js';
