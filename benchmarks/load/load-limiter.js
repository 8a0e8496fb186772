// Part 2 of load.js, exact limiter counts: N + K requests with one key of limit N, written at the
// same instant on N + K pre-opened connections; exactly N must pass the limiter (they then fail
// validation, a cheap 400) and K must get 429. Once with the memory store, once with two server
// processes (two engines) sharing one redis-server started here on a free loopback port.

import net from 'node:net';
import { startRedis } from '../lib/redis.js';
import { markdownTable } from '../lib/tables.js';
import { startServer } from './load-servers.js';

/**
 * Opens `count` connections (spread over `ports`), then writes one request on each in the same
 * tick, and reads every answer. Returns [{ status, code, remaining }].
 */
async function fireTogether(ports, requestPath, headers, count) {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise((resolve, reject) => {
          const s = net.connect(ports[i % ports.length], '127.0.0.1');
          s.setNoDelay(true);
          s.once('connect', () => resolve({ socket: s, port: ports[i % ports.length] }));
          s.once('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    ({ socket }) =>
      new Promise((resolve) => {
        const chunks = [];
        const timer = setTimeout(() => socket.destroy(), 30_000);
        socket.on('data', (d) => chunks.push(d));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('latin1');
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
          const remaining = /\r\nx-ratelimit-remaining: *(\d+)/i.exec(text)?.[1];
          const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
          resolve({ status, code, remaining: remaining === undefined ? undefined : Number(remaining) });
        });
      }),
  );
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  for (const { socket, port } of sockets) {
    socket.write(`GET ${requestPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`);
  }
  return Promise.all(answers);
}

function judgeRound(answers, limit, extra) {
  const passed = answers.filter((a) => a.status !== 429);
  const limited = answers.filter((a) => a.status === 429 && a.code === 'RATE_LIMIT_EXCEEDED');
  const cheap = passed.every((a) => a.status === 400 && a.code === 'INVALID_PARAMETER');
  // Each request that passed saw its own place in the window: remaining = limit-1 ... 0, once each.
  const remaining = new Set(passed.map((a) => a.remaining));
  const distinct = remaining.size === limit && [...remaining].every((v) => v >= 0 && v < limit);
  return {
    passed: passed.length,
    limited: limited.length,
    other: answers.length - passed.length - limited.length,
    cheap,
    distinct,
    exact: passed.length === limit && limited.length === extra && cheap,
  };
}

/** Runs the rounds with the memory store, then with Redis; pushes one result per store into `results`. */
export async function runLimiter({ cfg, log }, results) {
  const N = cfg.limit;
  const K = cfg.extra;
  const keys = Array.from({ length: cfg.rounds }, (_, i) => ({ key: `ce_load_limit_${String(i).padStart(3, '0')}_abcdef0123456789`, tier: 'BASIC' }));
  // No capture runs in this part: the browser is launched as usual, but no warm contexts are opened.
  const options = { allowPrivateNetworks: true, apiKeys: keys, tiers: { BASIC: { requestsPerMinute: N } }, concurrency: 1, warmContexts: 0 };
  // Cheap requests: no url, so every request that passes the limiter fails validation (400).
  const requestPath = '/api/v1/capture?viewport_width=800';

  const runRounds = async (label, instances, ports) => {
    const rounds = [];
    for (const { key } of keys) {
      const answers = await fireTogether(ports, requestPath, { 'X-API-Key': key }, N + K);
      rounds.push(judgeRound(answers, N, K));
    }
    results.push({ label, instances, rounds });
    log(`limiter: ${label}: ${rounds.map((x) => `${x.passed}/${x.limited}`).join(' ')}`);
  };

  log(`limiter: memory store, one express server, ${cfg.rounds} rounds of ${N + K} requests, limit ${N}`);
  const one = await startServer('express', options);
  try {
    await runRounds('memory', '1 (express)', [one.port]);
  } finally {
    await one.close();
  }

  let redis;
  try {
    redis = await startRedis();
  } catch (error) {
    log(`limiter: redis part skipped: ${error.message}`);
    results.push({ label: 'redis', instances: 'skipped', rounds: [], skipped: error.message });
    return;
  }
  try {
    log(`limiter: redis store, express + fastify servers sharing redis-server on 127.0.0.1:${redis.port}`);
    const a = await startServer('express', options, { redisUrl: redis.url });
    const b = await startServer('fastify', options, { redisUrl: redis.url });
    try {
      await runRounds('redis', '2 (express + fastify)', [a.port, b.port]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    await redis.stop();
  }
}

export function printLimiter(results, cfg) {
  const N = cfg.limit;
  const K = cfg.extra;
  console.log(`## 2. Exact limiter counts\n`);
  console.log(
    `One key per round with a limit of N = ${N}/min; N + k = ${N + K} requests (no \`url\`, so a request that passes the limiter answers 400) ` +
      `written in the same tick on ${N + K} pre-opened connections (alternating between the instances when there are two); a fresh key each round. ` +
      `The servers are express (and fastify for the second instance) with \`concurrency: 1, warmContexts: 0\` (no capture runs here). ` +
      `Exact = exactly ${N} answers other than 429, all \`400 INVALID_PARAMETER\`, and exactly ${K} \`429 RATE_LIMIT_EXCEEDED\`.\n`,
  );
  const span = (xs) => (Math.min(...xs) === Math.max(...xs) ? String(xs[0]) : `${Math.min(...xs)}–${Math.max(...xs)}`);
  console.log(markdownTable(
    ['limiter store', 'instances', 'rounds', 'passed per round', '429 per round', 'other', 'X-RateLimit-Remaining 0..N-1 once each', 'exact'],
    results.map((r) => {
      if (r.skipped) return [r.label, 'skipped', '0', '', '', '', '', `SKIPPED (${r.skipped})`];
      const exact = r.rounds.filter((x) => x.exact).length;
      return [
        r.label,
        r.instances,
        String(r.rounds.length),
        span(r.rounds.map((x) => x.passed)),
        span(r.rounds.map((x) => x.limited)),
        String(r.rounds.reduce((a, x) => a + x.other, 0)),
        `${r.rounds.filter((x) => x.distinct).length}/${r.rounds.length} rounds`,
        exact === r.rounds.length && r.rounds.length > 0 ? `PASS (${exact}/${r.rounds.length})` : `FAIL (${exact}/${r.rounds.length})`,
      ];
    }),
  ));
  console.log();
}

/** One verdict per store that ran: every round exact. */
export const limiterVerdicts = (results) =>
  results.filter((r) => !r.skipped).map((r) => r.rounds.length > 0 && r.rounds.every((x) => x.exact));
