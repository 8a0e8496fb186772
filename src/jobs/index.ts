export { CaptureJobs, createCaptureJobs } from './capture-jobs.js';
export { startCaptureWorker, type CaptureWorker, type CaptureWorkerOptions } from './capture-worker.js';
export type { CaptureJobsOptions } from './jobs-options.js';
export type { QuotaRefund } from './settlement.js';
export { accountWebhookSecret, webhookHeaders, type WebhookAttempt } from './webhook-signature.js';
