import http from 'node:http';
import https from 'node:https';
import { PRODUCT } from '../core/identity.js';
import type { OutboundGuard } from './outbound-guard.js';

/** Redirects followed to a robots.txt: RFC 9309 §2.3.1.2 asks for at least five. */
const MAX_REDIRECTS = 5;

/** What asking an origin for its robots.txt came to, in RFC 9309's terms (§2.3.1). */
export type RobotsAnswer =
  | { kind: 'rules'; text: string }
  /** 4xx, or more than five redirects: no rules, so everything is allowed. */
  | { kind: 'unavailable'; status: number }
  /** 5xx, a refused or failed connection, a timeout: everything is disallowed. */
  | { kind: 'unreachable'; why: string };

export interface RobotsFetchLimits {
  /** Bytes of the file read; the rest is ignored (RFC 9309 §2.5: at least 500 KiB are parsed). */
  maxBytes: number;
  /** How long the fetch may take, redirects included. */
  timeoutMs: number;
}

/**
 * GETs `<origin>/robots.txt` through the egress guard (each redirect checked again, every
 * connection dialling only checked addresses), reading at most `maxBytes` within `timeoutMs`.
 * Never throws: a failure is an answer. No capture's signal ends it, as several captures may wait
 * for the one fetch; its own time bound does.
 */
export async function fetchRobotsTxt(origin: string, guard: OutboundGuard, limits: RobotsFetchLimits): Promise<RobotsAnswer> {
  const bounded = AbortSignal.timeout(limits.timeoutMs);
  let url = new URL('/robots.txt', origin);
  try {
    for (let hops = 0; hops <= MAX_REDIRECTS; hops++) {
      url = await guard.check(url.href, 'robots_txt');
      const answer = await getOnce(url, guard, limits.maxBytes, bounded);
      if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
        url = new URL(answer.location, url);
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return { kind: 'rules', text: answer.text };
      if (answer.status >= 400 && answer.status < 500) return { kind: 'unavailable', status: answer.status };
      return { kind: 'unreachable', why: `it answered ${answer.status}` };
    }
    return { kind: 'unavailable', status: 310 };
  } catch (error) {
    return { kind: 'unreachable', why: bounded.aborted ? `it did not answer within ${limits.timeoutMs} ms` : (error as Error).message };
  }
}

function getOnce(url: URL, guard: OutboundGuard, maxBytes: number, signal: AbortSignal): Promise<{ status: number; text: string; location?: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { lookup: guard.lookupFor(url), signal, headers: { 'User-Agent': PRODUCT, Accept: 'text/plain' } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        resolve({ status, text: '', location: response.headers.location });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => resolve({ status, text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8') });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size < maxBytes) return;
        // Enough read: the rest of the file is never parsed, so it is never downloaded.
        response.off('end', done);
        request.destroy();
        done();
      });
      response.on('end', done);
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}
