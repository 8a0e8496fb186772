import { createReadStream } from 'node:fs';
import { hash, createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { CaptureResult } from '../../core/capture-result.js';
import type { CaptureStorage } from '../../core/storage.js';
import type { Logger } from '../../core/telemetry/logger.js';
import { CaptureError } from '../../core/errors/catalogue.js';
import type { CacheEntry, CacheIndex } from './cache-index.js';
import { cacheFileKey } from './cache-files.js';

export type CacheOutcome = 'hit' | 'miss' | 'stale' | 'coalesced';

/** How long one request's entry lives, from its parameters. */
export interface CacheLifetimes {
  /** The account whose entry it is: its file is served to that account's key only. */
  owner: string;
  ttlSeconds: number;
  staleSeconds: number;
  /** How long a capture of this request may hold the right to fill the entry. */
  claimMs: number;
}

/** An entry and how to send its bytes: from memory when they are small, else streamed from the storage. */
export interface CachedFile {
  outcome: CacheOutcome;
  entry: CacheEntry;
  body: Buffer | (() => Readable);
}

export interface ResultCacheSettings {
  index: CacheIndex;
  storage: CaptureStorage;
  /** Bytes of small entries kept in this process, so a hit reads no storage. 0 keeps none. */
  memoryBytes: number;
  log: Logger;
  /** The clock entries age by (tests move it). */
  now: () => number;
  /** Largest sum of an entry's sidecars' bytes; a capture over it is answered but not cached. */
  maxSidecarBytes?: number;
}

/** Largest `page` (metadata=true) an entry keeps, as JSON: it lives in the index (memory or Redis), not the storage. */
export const MAX_CACHED_PAGE_BYTES = 256 * 1024;

/**
 * Each output is capped in the page (5 M characters, 10,000 links...), and there are seven: this
 * keeps one entry's files within what one capture of a few outputs makes, whatever the page.
 */
export const MAX_CACHED_SIDECAR_BYTES = 32 * 1024 * 1024;

/** Entries larger than this are always streamed from the storage. */
const LARGEST_IN_MEMORY = 2 * 1024 * 1024;
/** How often a request waiting for another instance's capture looks for the entry. */
const POLL_MS = 50;

/**
 * The result cache: answers a request from a stored capture when one is fresh (HIT) or within its
 * stale time (STALE, while one background capture replaces it), else captures once for every
 * identical request at the same time, here or on any instance sharing the index (MISS for the one
 * that captured, COALESCED for the others).
 */
export class ResultCache {
  private readonly flights = new Map<string, Promise<CachedFile>>();
  private readonly refreshing = new Set<string>();
  private readonly memory: LRUCache<string, Buffer> | undefined;

  /** The clock entries age by. */
  readonly now: () => number;

  constructor(private readonly settings: ResultCacheSettings) {
    this.now = settings.now;
    this.memory =
      settings.memoryBytes > 0
        ? new LRUCache<string, Buffer>({ maxSize: settings.memoryBytes, maxEntrySize: LARGEST_IN_MEMORY, sizeCalculation: (bytes) => bytes.length })
        : undefined;
  }

  /**
   * The answer to a cached request. `capture` runs the capture (quota included) when one is
   * needed; `fresh` captures again even over a fresh entry.
   */
  async answer(key: string, lifetimes: CacheLifetimes, capture: () => Promise<CaptureResult>, fresh: boolean): Promise<CachedFile> {
    if (fresh) return { outcome: 'miss', ...(await this.captureAndStore(key, lifetimes, capture)) };
    const now = this.settings.now();
    const entry = await this.settings.index.get(key);
    if (entry && now < entry.staleUntil) {
      const body = await this.bodyOf(entry);
      if (body) {
        if (now < entry.expires) return { outcome: 'hit', entry, body };
        this.refreshInBackground(key, lifetimes, capture);
        return { outcome: 'stale', entry, body };
      }
    }
    const flight = this.flights.get(key);
    if (flight) return { ...(await flight), outcome: 'coalesced' };
    const filling = this.fill(key, lifetimes, capture);
    this.flights.set(key, filling);
    try {
      return await filling;
    } finally {
      this.flights.delete(key);
    }
  }

  /** Captures once across instances: whoever claims the entry captures, the others wait for it. */
  private async fill(key: string, lifetimes: CacheLifetimes, capture: () => Promise<CaptureResult>): Promise<CachedFile> {
    const { index } = this.settings;
    const giveUpAt = Date.now() + 2 * lifetimes.claimMs;
    for (;;) {
      const token = await index.claim(key, lifetimes.claimMs);
      if (token !== undefined) {
        try {
          // Another instance may have filled the entry between our miss and our claim.
          const filled = await this.usable(key);
          return filled ?? { outcome: 'miss', ...(await this.captureAndStore(key, lifetimes, capture)) };
        } finally {
          await index.release(key, token);
        }
      }
      await sleep(POLL_MS);
      const filled = await this.usable(key);
      if (filled) return filled;
      if (Date.now() > giveUpAt) throw new CaptureError('SERVICE_BUSY', 'Timed out waiting for an identical capture on another instance', { details: { reason: 'cache_fill_timeout' } });
    }
  }

  /** A fresh entry with its bytes still in the storage, as another request's capture left it. */
  private async usable(key: string): Promise<CachedFile | undefined> {
    const entry = await this.settings.index.get(key);
    if (!entry || this.settings.now() >= entry.expires) return undefined;
    const body = await this.bodyOf(entry);
    return body && { outcome: 'coalesced', entry, body };
  }

  /** Stale entries are replaced by one capture, on whichever instance claims it first. */
  private refreshInBackground(key: string, lifetimes: CacheLifetimes, capture: () => Promise<CaptureResult>): void {
    if (this.refreshing.has(key)) return;
    this.refreshing.add(key);
    const { index, log } = this.settings;
    void (async () => {
      const token = await index.claim(key, lifetimes.claimMs);
      if (token === undefined) return;
      try {
        await this.captureAndStore(key, lifetimes, capture);
      } finally {
        await index.release(key, token);
      }
    })()
      .catch((error: unknown) => log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'cache refresh failed'))
      .finally(() => this.refreshing.delete(key));
  }

  private async captureAndStore(key: string, lifetimes: CacheLifetimes, capture: () => Promise<CaptureResult>): Promise<Omit<CachedFile, 'outcome'>> {
    const { storage, index, now, log } = this.settings;
    const result = await capture();
    try {
      const storageKey = cacheFileKey(lifetimes.owner, result.extension);
      const created = now();
      const expires = created + lifetimes.ttlSeconds * 1000;
      const staleUntil = expires + lifetimes.staleSeconds * 1000;
      const etag = `"${result.data ? hash('sha256', result.data, 'base64url') : await fileDigest(result.path as string)}"`;
      await storage.put(storageKey, { data: result.data, path: result.path }, { contentType: result.contentType, size: result.size }, { lifetimeMs: staleUntil - created });
      const sidecars = await this.storeSidecars(result, lifetimes.owner, staleUntil - created);
      const entry: CacheEntry = {
        id: result.id,
        storageKey,
        format: result.format,
        contentType: result.contentType,
        extension: result.extension,
        size: result.size,
        etag,
        created,
        expires,
        staleUntil,
        ...(result.clippedFrom === undefined ? {} : { clippedFrom: result.clippedFrom }),
        ...(result.page === undefined ? {} : { page: result.page }),
        ...(sidecars === undefined ? {} : { sidecars }),
      };
      if (this.holds(result)) await index.set(key, entry);
      else log.warn({ captureId: result.id, limit: this.maxSidecarBytes }, 'capture not cached: its sidecars or its page are over their limits');
      if (result.data) this.memory?.set(storageKey, result.data);
      const body = result.data ?? (await this.bodyOf(entry));
      if (!body) throw new CaptureError('SERVICE_BUSY', 'The cached capture could not be read back from the storage', { details: { reason: 'storage_unavailable' } });
      return { entry, body };
    } finally {
      await result.dispose();
    }
  }

  private get maxSidecarBytes(): number {
    return this.settings.maxSidecarBytes ?? MAX_CACHED_SIDECAR_BYTES;
  }

  /** Whether an entry may keep what this capture made. */
  private holds(result: CaptureResult): boolean {
    const sidecarBytes = (result.sidecarFiles ?? []).reduce((sum, { data }) => sum + data.length, 0);
    return sidecarBytes <= this.maxSidecarBytes && (result.page === undefined || Buffer.byteLength(JSON.stringify(result.page)) <= MAX_CACHED_PAGE_BYTES);
  }

  /** The sidecars under the owner's cache keys, kept as long as the entry's file; their keys by name. */
  private async storeSidecars(result: CaptureResult, owner: string, lifetimeMs: number): Promise<Record<string, string> | undefined> {
    if (!result.sidecarFiles) return undefined;
    const keys: Record<string, string> = {};
    for (const { name, extension, contentType, data } of result.sidecarFiles) {
      const sidecarKey = cacheFileKey(owner, extension);
      await this.settings.storage.put(sidecarKey, { data }, { contentType, size: data.length }, { lifetimeMs });
      keys[name] = sidecarKey;
    }
    return keys;
  }

  /** The entry's bytes, or undefined when the storage no longer has them (expired, swept, lost). */
  private async bodyOf(entry: CacheEntry): Promise<CachedFile['body'] | undefined> {
    const kept = this.memory?.get(entry.storageKey);
    if (kept) return kept;
    const file = await this.settings.storage.get(entry.storageKey);
    if (!file) return undefined;
    if (this.memory && file.size <= LARGEST_IN_MEMORY) {
      const bytes = await readAll(file.stream());
      this.memory.set(entry.storageKey, bytes);
      return bytes;
    }
    return () => file.stream();
  }
}

async function fileDigest(path: string): Promise<string> {
  const digest = createHash('sha256');
  await pipeline(createReadStream(path), digest);
  return digest.digest('base64url');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
