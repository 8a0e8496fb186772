import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';

/**
 * Fair sharing of the browser slots between accounts, on the node adapter with a real engine: the
 * order in which pages reach the fixture server shows whose capture got each slot. Latencies are
 * logged, not asserted (benchmarks/fairness measures them).
 */
const KEYS = { a: 'ce_fair_a_0123456789abcdefghijklm', b: 'ce_fair_b_0123456789abcdefghijklm', capped: 'ce_fair_c_0123456789abcdefghijklm' };
const FLOOD = 30;
let fixtures: FixtureServer;
let engine: CaptureEngine;
let app: RunningApp;
/** Who each page load was for, in the order they arrived. */
const arrivals: string[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/tagged': (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      arrivals.push(query.get('for') ?? '');
      // Long enough that a flood keeps both slots busy while the lone capture is asked for.
      setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<body style="margin:0;background:#00ff00;height:100vh"></body>'), Number(query.get('ms') ?? 0));
    },
  });
  engine = await createTestEngine({ concurrency: 2, maxQueue: 4, warmContexts: 2 });
  const tiers = { ENTERPRISE: { requestsPerMinute: 10_000, maxConcurrent: 0 }, BASIC: { requestsPerMinute: 10_000, maxConcurrent: 1 } };
  app = await startApp(
    'node',
    createCaptureHttp(engine, {
      tiers,
      apiKeys: [
        { key: KEYS.a, tier: 'ENTERPRISE' },
        { key: KEYS.b, tier: 'ENTERPRISE' },
        { key: KEYS.capped, tier: 'BASIC' },
      ],
    }),
  );
});
afterAll(async () => {
  await app?.close();
  await engine?.close();
  await fixtures?.close();
});

async function capture(key: string, tag: string, ms: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${app.origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url(`/tagged?for=${tag}&ms=${ms}`))}&viewport_width=120&viewport_height=100`, { headers: { 'X-API-Key': key } });
  await response.arrayBuffer();
  return { status: response.status, ms: Math.round(performance.now() - started) };
}

describe('fair sharing between accounts', () => {
  it("serves a lone capture of B after at most one of A's flood, and admits it though A filled the queue", async () => {
    const atRest = await capture(KEYS.b, 'b-rest', 100);
    arrivals.length = 0;
    const flood = Array.from({ length: FLOOD }, (_, i) => capture(KEYS.a, `a${i}`, 100));
    // Both slots busy with A's captures, and more of A's waiting.
    await until(() => arrivals.length >= 2);
    const before = arrivals.length;
    const lone = await capture(KEYS.b, 'b', 100);
    const answers = await Promise.all(flood);
    // maxQueue 4: most of A's flood is turned away, B's capture is not.
    expect(lone.status).toBe(200);
    expect(answers.filter(({ status }) => status === 503).length).toBeGreaterThan(FLOOD / 2);
    const servedBefore = arrivals.indexOf('b') - before;
    expect(servedBefore).toBeGreaterThanOrEqual(0);
    expect(servedBefore).toBeLessThanOrEqual(1);
    console.log(`fair sharing: B at rest ${atRest.ms} ms, B during A's flood ${lone.ms} ms, A's captures started before B's: ${servedBefore}`);
  });

  it("keeps one account within its tier's maxConcurrent while slots are free", async () => {
    arrivals.length = 0;
    const capped = Array.from({ length: 3 }, (_, i) => capture(KEYS.capped, `c${i}`, 300));
    await until(() => arrivals.length >= 1);
    // One slot free, the capped account's next capture waiting: another account takes the slot at once.
    const other = await capture(KEYS.b, 'b', 0);
    expect(other.status).toBe(200);
    expect(arrivals.slice(0, 2)).toEqual(['c0', 'b']);
    expect((await Promise.all(capped)).map(({ status }) => status)).toEqual([200, 200, 200]);
    expect(arrivals.filter((tag) => tag.startsWith('c'))).toEqual(['c0', 'c1', 'c2']);
  });
});

/** Polls a condition the fixture server makes true; the test's timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
