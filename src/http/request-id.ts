import { randomUUID } from 'node:crypto';
import type { HttpRequest } from './http-types.js';

/** The header a request id comes in and goes back out in, as proxies and Gotenberg's `Gotenberg-Trace` use one. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Longest id taken from a caller: it is echoed, logged and stored with a job, so a megabyte of it must not be. */
export const MAX_REQUEST_ID_LENGTH = 128;

/**
 * What an id may be made of: letters, digits and `-_.:/+=` (UUIDs, ULIDs, base64, W3C trace ids,
 * `service:1234`). Never a space, a quote or a control character, which would forge log lines or headers.
 */
const REQUEST_ID = new RegExp(`^[A-Za-z0-9._:/+=-]{1,${MAX_REQUEST_ID_LENGTH}}$`);

const ids = new WeakMap<HttpRequest, string>();

/**
 * The request's id: the caller's `X-Request-Id` when it is one (a single value within the length and
 * characters above), else a fresh UUID. Computed once per request; every route reads the same one.
 */
export function requestIdOf(request: HttpRequest): string {
  let id = ids.get(request);
  if (id === undefined) {
    const sent = request.headers[REQUEST_ID_HEADER.toLowerCase()];
    id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    ids.set(request, id);
  }
  return id;
}
