import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ResultCache } from '../../src/http/cache/result-cache.js';
import { memoryCacheIndex } from '../../src/http/cache/cache-index.js';
import { toCaptureResult } from '../../src/core/capture-result.js';
import { createFsStorage } from '../../src/storage/fs-storage.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import type { Sidecar } from '../../src/core/diagnostics.js';
import type { PageMetadata } from '../../src/core/plugin-api.js';

/** The result cache's bound on what one entry holds beside its file (`outputs=` with `cache=true`). */
const dir = mkdtempSync(path.join(inject('testTempRoot'), 'result-cache-sidecars-'));
const storage = createFsStorage({ dir });
afterAll(async () => {
  await storage.close?.();
  rmSync(dir, { recursive: true, force: true });
});

const lifetimes = { owner: 'acct', ttlSeconds: 60, staleSeconds: 0, claimMs: 10_000 };
const markdown = (bytes: number): Sidecar => ({ name: 'markdown', extension: 'md', contentType: 'text/markdown; charset=utf-8', data: Buffer.alloc(bytes, 'a') });

/** A finished png capture with these sidecars (and `metadata=true`'s page), as the engine hands it over; counts how often it was taken. */
function capturing(sidecars: Sidecar[], metadata?: PageMetadata): { capture: () => Promise<ReturnType<typeof toCaptureResult>>; taken: () => number } {
  let taken = 0;
  return {
    capture: async () => {
      taken += 1;
      const data = Buffer.from('png bytes');
      return toCaptureResult(`id${taken}`, { output: { format: 'png', size: data.length, data }, incomplete: [], timings: {}, sidecars, metadata }, () => {});
    },
    taken: () => taken,
  };
}

/** `metadata=true`'s page with this many characters of JSON-LD. */
const page = (jsonLdChars: number): PageMetadata => ({
  title: 't',
  description: null,
  canonical: null,
  lang: null,
  open_graph: {},
  twitter: {},
  json_ld: [{ text: 'x'.repeat(jsonLdChars) }],
  icons: [],
  feeds: [],
  status: 200,
  final_url: 'https://example.com/',
  headers: null,
  fonts: [],
  og_image: null,
});

describe('result cache: what an entry holds', () => {
  const cache = new ResultCache({ index: memoryCacheIndex(), storage, memoryBytes: 0, log: silentLogger, now: () => Date.now(), maxSidecarBytes: 1000 });

  it('keeps an entry\'s sidecars under its owner\'s cache keys, and answers them on a hit', async () => {
    const { capture, taken } = capturing([markdown(1000)]);
    const first = await cache.answer('within', lifetimes, capture, false);
    const second = await cache.answer('within', lifetimes, capture, false);
    expect([first.outcome, second.outcome, taken()]).toEqual(['miss', 'hit', 1]);
    const key = second.entry.sidecars?.markdown as string;
    expect(key).toMatch(/^cache\/[\w-]+\.md$/);
    expect((await storage.get(key))?.size).toBe(1000);
  });

  it('answers a capture whose sidecars are over the bound, and does not cache it', async () => {
    const { capture, taken } = capturing([markdown(600), { ...markdown(401), name: 'text', extension: 'txt' }]);
    const first = await cache.answer('over', lifetimes, capture, false);
    const second = await cache.answer('over', lifetimes, capture, false);
    expect([first.outcome, second.outcome, taken()]).toEqual(['miss', 'miss', 2]);
    expect(Object.keys(first.entry.sidecars ?? {})).toEqual(['markdown', 'text']);
  });

  it('does not cache a page (metadata=true) over 256 KiB of JSON: the index holds it, not the storage', async () => {
    const small = capturing([], page(200_000));
    await cache.answer('small page', lifetimes, small.capture, false);
    expect((await cache.answer('small page', lifetimes, small.capture, false)).outcome).toBe('hit');
    const large = capturing([], page(270_000));
    await cache.answer('large page', lifetimes, large.capture, false);
    expect([(await cache.answer('large page', lifetimes, large.capture, false)).outcome, large.taken()]).toEqual(['miss', 2]);
  });

  it('keeps the in-memory index within its bytes: the least recently used entry goes first', async () => {
    const index = memoryCacheIndex({ maxBytes: 500_000 });
    const bounded = new ResultCache({ index, storage, memoryBytes: 0, log: silentLogger, now: () => Date.now() });
    for (const key of ['first', 'second', 'third']) await bounded.answer(key, lifetimes, capturing([], page(200_000)).capture, false);
    expect([await index.get('first'), await index.get('second'), await index.get('third')].map((entry) => entry !== undefined)).toEqual([false, true, true]);
  });
});
