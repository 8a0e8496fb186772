import type { HttpResponse } from './http-types.js';

/** What the HTTP service tells its observer (metrics) about each answered request. */
export interface AnsweredRequest {
  route: 'capture' | 'render' | 'bulk' | 'status' | 'file' | 'openapi' | 'webhook-secret' | 'health' | 'playground' | 'mcp' | 'other';
  status: number;
  /** The catalogue code of an error answer. */
  code?: string;
  /** Of a capture whose parameters were valid. */
  format?: string;
  scenario?: string;
  /** Size of the captured file. */
  bytes?: number;
  /** How the result cache answered a `cache=true` request. */
  cache?: 'hit' | 'miss' | 'stale' | 'coalesced';
  /** Capture id and the caller's key id (never the key), for the access log. */
  captureId?: string;
  keyId?: string;
  /** An MCP request that called a tool: a capture request like those of `/v1/capture`. */
  toolCall?: boolean;
  /** Browser time the request's capture held (queue wait excluded), and the caller's tier. */
  browserSeconds?: number;
  tier?: string;
  seconds: number;
}

/** What a route answered, and what it learnt on the way for the access log and the observer. */
export type RouteAnswer = Omit<AnsweredRequest, 'status' | 'code' | 'seconds'> & { response: HttpResponse };

/** Told about every answered request; implemented by the ops layer (Prometheus) or an app. */
export interface HttpObserver {
  answered(request: AnsweredRequest): void;
}

/** One thing the service needs to work (a store, the browser); readiness fails while it throws. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}
