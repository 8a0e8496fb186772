import type { Page, Request, Response } from 'playwright-core';
import { EGRESS_REPLY_HEADER, type EgressFailure } from '../../src/core/ports.js';
import { EGRESS_FAILURE, type CaptureState } from '../../src/core/capture-state.js';

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

/** The egress guard's words for its failures, as its own HTTP answers name them (EGRESS_REPLY_HEADER). */
const EGRESS_REASONS: Readonly<Record<EgressFailure, string>> = { refused: 'URL_NOT_ALLOWED', dns: 'DNS_FAILED', unreachable: 'UPSTREAM_UNREACHABLE', proxy: 'UPSTREAM_UNREACHABLE' };

/** How Chromium reports a connection its proxy would not make: SOCKS5 and CONNECT refusals. */
const PROXY_REFUSAL = /ERR_(SOCKS_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED)/;

/**
 * Why the egress guard did not carry the failed `request` (`URL_NOT_ALLOWED`, `DNS_FAILED`,
 * `UPSTREAM_UNREACHABLE`, as egressRefusal says them), or undefined for a failure of its own.
 */
export function egressFailure(state: CaptureState, request: Request): string | undefined {
  if (!PROXY_REFUSAL.test(request.failure()?.errorText ?? '')) return undefined;
  const failure = state.get(EGRESS_FAILURE)?.(request.url());
  return failure === undefined ? undefined : EGRESS_REASONS[failure];
}
