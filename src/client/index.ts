// capture-engine/client: the service's HTTP interface, typed, for Node 20, browsers and edge runtimes.
// Nothing here starts a browser or a server: it imports types and pure helpers only.
export { CaptureClient, createCaptureClient } from './capture-client.js';
export type { BulkRequest, CaptureClientOptions, CaptureJson, CapturedFile, CaptureRequest, QueuedBulk, QueuedCapture, RequestOptions, WaitOptions } from './capture-client.js';
export { CaptureApiError } from './api-error.js';
export type { RetryOptions } from './retries.js';
export { operatorLinkCredentials, verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './web-crypto.js';
export type { VerifyWebhookOptions, WebhookHeaders } from './web-crypto.js';
export type { BulkStatus, CaptureJobStatus } from '../http/async-captures-port.js';
export type { ContentAnswers, LinksAnswer, MetadataAnswer, PageLink, ScrapeAnswer, ScrapedElement, ScrapeRule } from '../core/page-content.js';
