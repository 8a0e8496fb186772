import type { CaptureParams } from '../core/schema/capture-params.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import type { Caller } from './caller.js';
import type { LimitDecision } from '../access/policy.js';
import type { UploadedFiles } from './multipart-body.js';
import type { HttpRequest } from './http-types.js';
import type { ParamBag } from './request-body.js';

/** One capture request once its caller is known, from `/v1/capture` or a render link. */
export interface CaptureAsk {
  route: 'capture' | 'render' | 'bulk' | 'mcp';
  request: HttpRequest;
  caller: Caller;
  params: ParamBag;
  /** A POST body that could not be read: answered after the rate limit, like any other refusal. */
  bodyError?: CaptureError;
  /** What this route refuses of otherwise valid parameters. */
  check?: (params: CaptureParams) => void;
  /** A render link's fetch: the link, counted against the link limits instead of any API limit. */
  link?: { id: string | undefined };
  /** The request already counted against its caller's rate limit, and the headers that says. */
  counted?: { rate: LimitDecision; headers: Record<string, string> };
  /** The files of an upload, on disk. */
  uploads?: UploadedFiles;
  /** HEAD: capture (or warm the cache) and answer the headers only. */
  headOnly?: boolean;
}
