/** Headers that describe one connection (RFC 9110 §7.6.1) and must not cross the proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Filters a raw `[name, value, ...]` header list, keeping order, case and repeats (Set-Cookie)
 * as they came. Node re-frames the body, so the framing headers go too.
 */
export function stripHopByHop(rawHeaders: readonly string[]): string[] {
  const dropped = new Set(HOP_BY_HOP);
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'connection') {
      for (const token of rawHeaders[i + 1]!.split(',')) dropped.add(token.trim().toLowerCase());
    }
  }
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!dropped.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}
