import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, mcpInFlightLimit, redisLimiterStore } from '../../src/access/index.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

/** Several instances share limits through Redis: the counts must be exact across them. */
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

describe('limits shared through Redis', () => {
  it('two instances together let exactly N of N+k simultaneous requests through', async () => {
    const tiers = { BASIC: { requestsPerMinute: 25 } };
    const first = createPolicy({ tiers, store: redisLimiterStore(redis.client()) });
    const second = createPolicy({ tiers, store: redisLimiterStore(redis.client()) });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? first : second).hitAccount('shared-account', 'BASIC')));
    expect(results.filter((result) => result.allowed)).toHaveLength(25);
    expect(results.filter((result) => !result.allowed).every((result) => result.remaining === 0)).toBe(true);
  });

  it('refuses a key over its limit from memory, so a flood does not reach Redis', async () => {
    const policy = createPolicy({ tiers: { BASIC: { requestsPerMinute: 5 } }, store: redisLimiterStore(redis.client()) });
    const results = [];
    for (let i = 0; i < 30; i++) results.push(await policy.hitAccount('flooding-account', 'BASIC'));
    expect(results.filter((result) => result.allowed)).toHaveLength(5);
    expect(results.slice(5).every((result) => !result.allowed && result.remaining === 0 && result.resetMs > Date.now())).toBe(true);
    // Five passes and the first refusal were counted in Redis; the other 24 never asked it.
    expect(Number(await redis.client().get('capture-engine:rate:BASIC:flooding-account'))).toBe(6);
  });

  it('quota reservations and refunds are shared and exact', async () => {
    const tiers = { PRO: { monthlyQuota: 3 } };
    const first = createPolicy({ tiers, store: redisLimiterStore(redis.client()) });
    const second = createPolicy({ tiers, store: redisLimiterStore(redis.client()) });
    const reservations = await Promise.all(Array.from({ length: 5 }, (_, i) => (i % 2 ? first : second).reserve('quota-account', 'PRO')));
    expect(reservations.filter((r) => r.allowed)).toHaveLength(3);
    await first.refund('quota-account', 'PRO');
    expect((await second.quota('quota-account', 'PRO')).remaining).toBe(1);
    expect((await second.reserve('quota-account', 'PRO')).allowed).toBe(true);
    expect((await first.reserve('quota-account', 'PRO')).allowed).toBe(false);
  });

  // Issue 52: a key's MCP requests in flight are held to its limit whichever instances they reach.
  it('MCP requests in flight: two instances together hold exactly the limit, a slot given back is taken again, refusals count nothing', async () => {
    const tiers = { BASIC: { maxConcurrent: 2 } };
    const [first, second] = [createPolicy({ tiers, store: redisLimiterStore(redis.client()) }), createPolicy({ tiers, store: redisLimiterStore(redis.client()) })];
    const holds = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).holdMcpRequest?.('mcp-account', 'BASIC')));
    const held = holds.filter((release) => release !== undefined);
    expect(held).toHaveLength(mcpInFlightLimit(first.tiers.BASIC));
    expect(await first.holdMcpRequest?.('mcp-account', 'BASIC')).toBeUndefined();
    await held[0]?.();
    const again = await second.holdMcpRequest?.('mcp-account', 'BASIC');
    expect([again !== undefined, await first.holdMcpRequest?.('mcp-account', 'BASIC')]).toEqual([true, undefined]);
    for (const release of [...held.slice(1), again]) await release?.();
    expect(await redis.client().zcard('capture-engine:mcp-in-flight:mcp-account')).toBe(0);
  });

  // Issue 52: a slot is held while its request runs, however long, and only then: no window resets under it.
  it('MCP requests in flight: slots held past their lifetime still count, an instance that stopped gets its slots back after one', async () => {
    const tiers = { FREE: { maxConcurrent: 1 } };
    const slotLifetimeMs = 900;
    const running = createPolicy({ tiers, store: redisLimiterStore(redis.client(), { slotLifetimeMs }) });
    const stopping = redis.client();
    const stopped = createPolicy({ tiers, store: redisLimiterStore(stopping, { slotLifetimeMs }) });
    const [kept, lost] = [await running.holdMcpRequest?.('long-mcp', 'FREE'), await stopped.holdMcpRequest?.('long-mcp', 'FREE')];
    expect([kept !== undefined, lost !== undefined, await running.holdMcpRequest?.('long-mcp', 'FREE')]).toEqual([true, true, undefined]);
    // The second instance dies holding its slot: its connection goes, nothing is given back.
    stopping.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 2 * slotLifetimeMs));
    // Two lifetimes on, the running request still counts: one slot is free, not two.
    const freed = await running.holdMcpRequest?.('long-mcp', 'FREE');
    expect([freed !== undefined, await running.holdMcpRequest?.('long-mcp', 'FREE')]).toEqual([true, undefined]);
    await Promise.all([kept?.(), freed?.()]);
    expect(await redis.client().zcard('capture-engine:mcp-in-flight:long-mcp')).toBe(0);
  });
});
