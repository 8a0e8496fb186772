import type { Page, Request, Response } from 'playwright-core';
import { EGRESS_REPLY_HEADER } from '../../src/core/ports.js';

/** Chromium's word for a request refused on purpose by the client (`block_ads`, blocked resources). */
export const BLOCKED_BY_CLIENT = /ERR_BLOCKED_BY_CLIENT/;
/** A request the page itself gave up (a navigation away, an aborted fetch). */
export const ABORTED = /ERR_ABORTED/;

/** What Chromium itself logs as a console error for a resource that failed to load. */
export const BROWSER_LOAD_ERROR = /^Failed to load resource: /;

/** Whether `request` is the page's own document (or one of its redirects), not a subresource. */
export function isMainDocument(page: Page, request: Request): boolean {
  return request.isNavigationRequest() && request.frame() === page.mainFrame();
}

/**
 * Why the egress guard answered `response` itself (`refused`, `dns`, `unreachable`), or undefined
 * for a real answer: to the page such an answer is an ordinary response, to the capture a resource
 * that was never reached.
 */
export function egressRefusal(response: Response): string | undefined {
  return response.headers()[EGRESS_REPLY_HEADER.toLowerCase()];
}
