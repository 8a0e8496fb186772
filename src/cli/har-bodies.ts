import { createHash } from 'node:crypto';
import type { Request } from 'playwright-core';
import type { CaptureContext } from '../core/plugin-api.js';

/**
 * The bodies of a page's responses for the CLI's HAR files, as Playwright's recordHar keeps them
 * for shot-scraper (`har`, `multi --har`): the engine's HAR leaves them out (the HTTP service stores
 * it beside every capture). Bounded: a body over MAX_BODY_BYTES, or past MAX_TOTAL_BYTES for the
 * command, is left out with a `comment` saying so.
 */
const MAX_BODY_BYTES = 50 * 1024 * 1024;
const MAX_TOTAL_BYTES = 250 * 1024 * 1024;

/** A response body, by the request it answered. */
interface Body {
  url: string;
  method: string;
  bytes?: Buffer;
  omitted?: string;
}

export interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  encoding?: 'base64';
  _file?: string;
  comment?: string;
}
export interface HarEntry {
  request: { method: string; url: string };
  response: { headers: { name: string; value: string }[]; content: HarContent };
}
export interface Har {
  log: { pages?: unknown[]; entries: HarEntry[] } & Record<string, unknown>;
}

/** The bodies of the responses a command's pages receive, read as each request finishes. */
export class BodyLog {
  private total = 0;

  /** Listens to the capture's page until it ends; the bodies it read, once every read settled. */
  listen(ctx: CaptureContext): () => Promise<Body[]> {
    const reads: Promise<Body>[] = [];
    const onFinished = (request: Request): void => void reads.push(this.read(request));
    ctx.page.on('requestfinished', onFinished);
    ctx.defer(() => ctx.page.off('requestfinished', onFinished));
    return () => Promise.all(reads);
  }

  private async read(request: Request): Promise<Body> {
    const body: Body = { url: request.url(), method: request.method() };
    const response = await request.response().catch(() => null);
    const size = (await request.sizes().catch(() => undefined))?.responseBodySize ?? 0;
    if (response === null) return body;
    if (size > MAX_BODY_BYTES || this.total + size > MAX_TOTAL_BYTES) return { ...body, omitted: `body of ${size} bytes left out (at most ${MAX_BODY_BYTES} a body, ${MAX_TOTAL_BYTES} a command)` };
    this.total += size;
    const bytes = await response.body().catch(() => undefined);
    return bytes === undefined ? body : { ...body, bytes };
  }
}

const bodiesOf = new WeakMap<HarContent, Buffer>();

/** Each entry of the HAR given the body read for its request (the first unused one of the same method and URL). */
export function attachBodies(har: Har, bodies: readonly Body[]): Har {
  const unused = [...bodies];
  for (const entry of har.log.entries) {
    const at = unused.findIndex((body) => body.url === entry.request.url && body.method === entry.request.method);
    if (at < 0) continue;
    const [body] = unused.splice(at, 1) as [Body];
    if (body.omitted !== undefined) entry.response.content.comment = body.omitted;
    if (body.bytes !== undefined && body.bytes.length > 0) bodiesOf.set(entry.response.content, body.bytes);
  }
  return har;
}

/** The body kept for an entry's content, if any. */
export const bodyOf = (content: HarContent): Buffer | undefined => bodiesOf.get(content);

/** Playwright's isTextualMimeType: these bodies are text in a HAR, the others base64. */
const TEXTUAL = /^(text\/.*?|application\/(json|(x-)?javascript|xml.*?|ecmascript|graphql|x-www-form-urlencoded)|image\/svg(\+xml)?|application\/.*?(\+json|\+xml))(;\s*charset=.*)?$/;

/** The body inline, as a `.har` holds it (Playwright's content: 'embed'). */
export function embedded(content: HarContent): HarContent {
  const bytes = bodyOf(content);
  if (bytes === undefined) return content;
  return TEXTUAL.test(content.mimeType) ? { ...content, text: bytes.toString('utf8') } : { ...content, text: bytes.toString('base64'), encoding: 'base64' };
}

/** Extensions of the files a `.har.zip` holds, by MIME type (Playwright names them sha1.extension, `dat` when unknown). */
const EXTENSIONS: Record<string, string> = { 'text/html': 'html', 'text/css': 'css', 'text/javascript': 'js', 'application/javascript': 'js', 'application/json': 'json', 'image/svg+xml': 'svg', 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/avif': 'avif', 'font/woff2': 'woff2', 'font/woff': 'woff', 'text/plain': 'txt', 'application/xml': 'xml', 'text/xml': 'xml', 'application/pdf': 'pdf' };

/** The body as a file of the ZIP beside har.har (Playwright's content: 'attach'): its name in `_file`. */
export function attached(content: HarContent, files: Record<string, Uint8Array>): HarContent {
  const bytes = bodyOf(content);
  if (bytes === undefined) return content;
  const name = `${createHash('sha1').update(bytes).digest('hex')}.${EXTENSIONS[content.mimeType.split(';')[0]?.trim().toLowerCase() ?? ''] ?? 'dat'}`;
  files[name] = bytes;
  return { ...content, _file: name };
}
