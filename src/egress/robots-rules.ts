import { LRUCache } from 'lru-cache';
import robotsParserModule from 'robots-parser';
import { PRODUCT_TOKEN } from '../core/identity.js';
import { captureErrors } from '../core/errors/factories.js';
import { fetchRobotsTxt, type RobotsAnswer, type RobotsFetchLimits } from './robots-fetch.js';
import type { OutboundGuard } from './outbound-guard.js';

export interface RobotsLimits extends RobotsFetchLimits {
  /** Origins whose rules are kept; the least recently used go first. */
  maxOrigins: number;
  /** Memory the kept rules may take together (each counted as its text in memory, 2 bytes a character). */
  maxCachedBytes: number;
  /** How long an origin's answer is kept: RFC 9309 §2.4 asks for no more than 24 h. */
  ttlMs: number;
  /** How long an unreachable origin's answer is kept, so a batch of its URLs does not ask again for each. */
  unreachableTtlMs: number;
  /** robots.txt fetches under way at once; past them a capture asking for another origin's is told to come back. */
  maxFetches: number;
}

export const ROBOTS_LIMITS: Readonly<RobotsLimits> = Object.freeze({
  maxBytes: 500 * 1024,
  timeoutMs: 5_000,
  maxOrigins: 1_000,
  maxCachedBytes: 16 * 1024 * 1024,
  ttlMs: 24 * 3600_000,
  unreachableTtlMs: 60_000,
  maxFetches: 32,
});

/** `robots_txt=respect`: whether an origin's robots.txt lets the engine capture a URL. */
export interface RobotsRules {
  /** Resolves when `url` may be captured; throws URL_NOT_ALLOWED (reason robots_txt) when not, SERVICE_BUSY past `maxFetches`. */
  check(url: URL): Promise<void>;
  /** What the cache holds: origins and their counted bytes. */
  readonly cached: { origins: number; bytes: number };
}

// A CommonJS module whose types declare an ES default: at run time the import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
type Robot = ReturnType<typeof robotsParser>;
interface Entry {
  answer: RobotsAnswer;
  robot?: Robot;
}

/** The rules of each origin asked about, fetched once through `guard` and kept within `limits`. */
export function createRobotsRules(guard: OutboundGuard, limits: RobotsLimits = ROBOTS_LIMITS): RobotsRules {
  const cache = new LRUCache<string, Entry>({
    max: limits.maxOrigins,
    maxSize: limits.maxCachedBytes,
    sizeCalculation: ({ answer }) => 256 + (answer.kind === 'rules' ? 2 * answer.text.length : 0),
    ttl: limits.ttlMs,
  });
  // One fetch per origin however many captures ask at once.
  const fetching = new Map<string, Promise<Entry>>();
  const entryOf = (origin: string): Promise<Entry> => {
    const kept = cache.get(origin);
    if (kept) return Promise.resolve(kept);
    const pending = fetching.get(origin);
    if (pending) return pending;
    if (fetching.size >= limits.maxFetches) return Promise.reject(captureErrors.robotsBusy());
    const fetched = fetchRobotsTxt(origin, guard, limits)
      .then((answer): Entry => {
        const entry = answer.kind === 'rules' ? { answer, robot: robotsParser(new URL('/robots.txt', origin).href, answer.text) } : { answer };
        cache.set(origin, entry, answer.kind === 'unreachable' ? { ttl: limits.unreachableTtlMs } : {});
        return entry;
      })
      .finally(() => fetching.delete(origin));
    fetching.set(origin, fetched);
    return fetched;
  };
  return {
    async check(url) {
      const { answer, robot } = await entryOf(url.origin);
      if (answer.kind === 'unreachable') {
        throw captureErrors.robotsDisallowed(url.href, `robots.txt of ${url.origin} could not be read (${answer.why}); RFC 9309 reads that as everything disallowed (robots_txt=respect)`);
      }
      if (robot && robot.isAllowed(url.href, PRODUCT_TOKEN) === false) {
        const line = robot.getMatchingLineNumber(url.href, PRODUCT_TOKEN);
        throw captureErrors.robotsDisallowed(url.href, `robots.txt of ${url.origin} disallows ${url.pathname}${url.search} for ${PRODUCT_TOKEN} (line ${line}) (robots_txt=respect)`);
      }
    },
    get cached() {
      return { origins: cache.size, bytes: cache.calculatedSize };
    },
  };
}
