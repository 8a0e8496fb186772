export { createCaptureMetrics, type CaptureMetrics } from './metrics.js';
export { startMetricsServer } from './metrics-server.js';
