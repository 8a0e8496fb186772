import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ENGINE_VERSION, PlaywrightBlocker } from '@ghostery/adblocker-playwright';
import { downloadList, findDefaultLists, isListUrl, listsFingerprint, readLists, writeAtomically } from './filter-lists.js';

/** Engine features we use: network and cosmetic filtering, nothing that rewrites responses. */
export const BLOCKER_CONFIG = {
  loadNetworkFilters: true,
  loadCosmeticFilters: true,
  loadGenericCosmeticsFilters: true,
  enableMutationObserver: true,
  loadCSPFilters: false,
  enableHtmlFiltering: false,
} as const;

export type PrebuiltEngine = 'ads' | 'ads-and-tracking' | 'full';

export interface EngineSource {
  /** List files or http(s) URLs; ignored when `prebuilt` is set. */
  lists?: readonly string[];
  /** Ghostery's prebuilt engine, downloaded once and cached. */
  prebuilt?: PrebuiltEngine;
  cacheDir: string;
  maxListAgeMs: number;
  fetch: typeof globalThis.fetch;
}

export interface LoadedEngine {
  blocker: PlaywrightBlocker;
  /** How it was obtained, for the log: 'cache' (~15 ms) or 'parsed' (~1.6 s). */
  origin: 'cache' | 'parsed' | 'prebuilt';
  ms: number;
}

/**
 * Builds the blocking engine once and keeps it serialized on disk: parsing EasyList and
 * EasyPrivacy takes over a second, loading the serialized engine about 15 ms. The cache key
 * covers the lists' identity and the engine's format version, so a list update or an upgrade
 * of the library rebuilds it by itself.
 */
export async function loadEngine(source: EngineSource): Promise<LoadedEngine> {
  const started = Date.now();
  await mkdir(source.cacheDir, { recursive: true });
  if (source.prebuilt) {
    const blocker = await loadPrebuilt(source.prebuilt, source);
    return { blocker, origin: 'prebuilt', ms: Date.now() - started };
  }
  const files = await resolveListFiles(source);
  const key = createHash('sha256')
    .update(JSON.stringify({ engine: ENGINE_VERSION, config: BLOCKER_CONFIG, lists: await listsFingerprint(files) }))
    .digest('hex')
    .slice(0, 24);
  const file = path.join(source.cacheDir, `engine-${key}.bin`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) {
    try {
      return { blocker: PlaywrightBlocker.deserialize(new Uint8Array(cached)), origin: 'cache', ms: Date.now() - started };
    } catch {
      // A truncated or foreign file: rebuild below and overwrite it.
    }
  }
  const blocker = PlaywrightBlocker.parse(await readLists(files), BLOCKER_CONFIG);
  await writeAtomically(file, blocker.serialize());
  await removeStaleEngines(source.cacheDir, path.basename(file));
  return { blocker, origin: 'parsed', ms: Date.now() - started };
}

async function resolveListFiles(source: EngineSource): Promise<string[]> {
  const lists = source.lists ?? findDefaultLists();
  if (!lists || lists.length === 0) {
    throw new Error(
      'No filter lists: install Debian\'s webext-ublock-origin-chromium (`npm run setup`) or pass `lists` to blockAds()',
    );
  }
  return Promise.all(
    lists.map((list) =>
      isListUrl(list) ? downloadList(list, { cacheDir: source.cacheDir, maxAgeMs: source.maxListAgeMs, fetch: source.fetch }) : Promise.resolve(list),
    ),
  );
}

async function loadPrebuilt(kind: PrebuiltEngine, source: EngineSource): Promise<PlaywrightBlocker> {
  // Ghostery's helpers read their cache file when present and write it after a download.
  const caching = {
    path: path.join(source.cacheDir, `prebuilt-${kind}-${ENGINE_VERSION}.bin`),
    read: (file: string) => readFile(file),
    write: (file: string, data: Uint8Array) => writeAtomically(file, data),
  };
  const fetchText = (url: string): Promise<Response> => source.fetch(url);
  if (kind === 'ads') return PlaywrightBlocker.fromPrebuiltAdsOnly(fetchText, caching);
  if (kind === 'full') return PlaywrightBlocker.fromPrebuiltFull(fetchText, caching);
  return PlaywrightBlocker.fromPrebuiltAdsAndTracking(fetchText, caching);
}

/** Engines of older lists would only fill the disk. */
async function removeStaleEngines(dir: string, keep: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => /^engine-[0-9a-f]+\.bin$/.test(name) && name !== keep).map((name) => rm(path.join(dir, name), { force: true })),
  );
}
