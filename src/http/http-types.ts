import type { Readable } from 'node:stream';

/** A request as any adapter hands it to `engine.handle()`. */
export interface HttpRequest {
  method: string;
  /** Path and query exactly as the client sent them, e.g. `/api/v1/capture?url=...`. */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Raw body bytes, or an object a framework's body parser already produced. */
  body?: Uint8Array | Record<string, unknown>;
  /** A `multipart/form-data` body, unread: the service reads it within its upload limits. */
  stream?: Readable;
  /** Set when the body exceeded the limit and was not read. */
  bodyTooLarge?: boolean;
  /** The client's address, for limits on requests without a valid key. */
  remoteAddress?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body?: Buffer | string | Readable;
  /** Runs once the body has been sent or the client went away (e.g. removes a temporary video). */
  onFinish?: () => Promise<void>;
  /** The catalogue code of an error answer (for logs and metrics; adapters ignore it). */
  code?: string;
}
