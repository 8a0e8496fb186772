import type { Resolver } from './resolver.js';

/**
 * Remembers each name's answer for `pinMs`, so one capture sees one consistent answer per name
 * (a rebinding server gets no second chance within that time) and a page with a hundred
 * subresources costs one lookup per host instead of a hundred. Safety never depends on the pin:
 * every connection still dials only addresses that were checked. Failures are not remembered,
 * so a transient DNS error is retried by the next request. `pinMs <= 0` resolves every time.
 */
export function createPinningResolver(resolve: Resolver, pinMs: number, maxNames = 1000): Resolver {
  if (pinMs <= 0) return resolve;
  const pins = new Map<string, { expires: number; answer: Promise<string[]> }>();
  return (hostname) => {
    const now = Date.now();
    const pin = pins.get(hostname);
    if (pin !== undefined && pin.expires > now) return pin.answer;
    pins.delete(hostname);
    // A page can make up names without end; forget the oldest rather than grow without bound.
    if (pins.size >= maxNames) pins.delete(pins.keys().next().value!);
    // Concurrent requests for one name share one lookup (and so one answer).
    const answer = resolve(hostname);
    pins.set(hostname, { expires: now + pinMs, answer });
    answer.catch(() => {
      if (pins.get(hostname)?.answer === answer) pins.delete(hostname);
    });
    return answer;
  };
}
