import { request, type Agent } from 'node:http';

/** A GET whose path is sent byte for byte, without the normalisation fetch() applies. */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { host, hostname, port } = new URL(url);
  const path = url.slice(url.indexOf(host) + host.length);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export interface RawRequest {
  method: string;
  /** Path and query, sent as they are (bytes 0x21..0xff; node refuses others). */
  path: string;
  /** Sent as given: an array repeats the header. No Content-Length is added unless given here or a body is. */
  headers?: Record<string, string | string[]>;
  /** Sent whole, with its Content-Length unless `chunked`. */
  body?: Buffer;
  /** Send the body with `Transfer-Encoding: chunked` instead of a length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  /** The reason phrase as sent (`Not Found`). */
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
  /** Set when no complete answer came within the budget. */
  timedOut?: boolean;
}

/**
 * One request over its own HTTP/1.1 exchange, exactly as built (method, raw path, repeated or
 * missing headers, any body), answered within `budgetMs` or reported as timed out.
 */
export function rawRequest(origin: string, raw: RawRequest, options: { agent?: Agent | false; budgetMs?: number } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  const budgetMs = options.budgetMs ?? 5000;
  const started = performance.now();
  const headers: Record<string, string | string[]> = { ...raw.headers };
  if (raw.body !== undefined && !raw.chunked && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) headers['Content-Length'] = String(raw.body.length);
  if (raw.chunked) headers['Transfer-Encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = request({ hostname, port, path: raw.path, method: raw.method, headers, agent: options.agent ?? false, setHost: true }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => finish({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
      res.on('error', (error) => fail(error));
    });
    const timer = setTimeout(() => {
      finish({ status: 0, statusText: '', headers: {}, body: Buffer.alloc(0), ms: performance.now() - started, timedOut: true });
      req.destroy();
    }, budgetMs);
    const finish = (answer: RawAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    req.on('error', fail);
    if (raw.body !== undefined) req.write(raw.body);
    req.end();
  });
}
