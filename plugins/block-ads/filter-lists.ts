import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BLOCK_ADS_DEFAULTS } from './defaults.js';

/**
 * Where Debian's `webext-ublock-origin-chromium` (and its siblings) keep uBlock Origin's bundled
 * copies of EasyList and EasyPrivacy. They are updated with the package, need no network, and are
 * what an offline machine can block with.
 */
const DEBIAN_EASYLIST_DIRS = [
  '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist',
  '/usr/share/webext/ublock-origin-chromium/assets/thirdparties/easylist',
  '/usr/share/webext/ublock-origin/assets/thirdparties/easylist',
  '/usr/share/webext/ublock-origin-firefox/assets/thirdparties/easylist',
];
const DEFAULT_LIST_FILES = ['easylist.txt', 'easyprivacy.txt'];

/** EasyList and EasyPrivacy from the first Debian location that has both, or undefined. */
export function findDefaultLists(dirs: readonly string[] = DEBIAN_EASYLIST_DIRS): string[] | undefined {
  for (const dir of dirs) {
    const files = DEFAULT_LIST_FILES.map((name) => path.join(dir, name));
    if (files.every((file) => existsSync(file))) return files;
  }
  return undefined;
}

export function isListUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export interface ListDownloadOptions {
  cacheDir: string;
  /** A downloaded copy younger than this is used without asking the network. */
  maxAgeMs: number;
  fetch: typeof globalThis.fetch;
  /** Time limit of one download. */
  timeoutMs?: number;
}

/**
 * Returns a local file for a list URL: the cached copy while it is fresh, else a new download; a
 * failed download falls back to a stale copy, so a network hiccup never disables blocking.
 */
export async function downloadList(url: string, options: ListDownloadOptions): Promise<string> {
  const dir = path.join(options.cacheDir, 'lists');
  const file = path.join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 16)}.txt`);
  const cached = await stat(file).catch(() => undefined);
  if (cached && Date.now() - cached.mtimeMs < options.maxAgeMs) return file;
  try {
    const response = await options.fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? BLOCK_ADS_DEFAULTS.listTimeoutMs) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const text = await response.text();
    await mkdir(dir, { recursive: true });
    await writeAtomically(file, text);
    return file;
  } catch (error) {
    if (cached) return file;
    throw new Error(`Could not download filter list ${url}: ${String(error)}`);
  }
}

/** Identity of the lists as the engine would parse them: path, size and modification time. */
export async function listsFingerprint(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    const info = await stat(file);
    hash.update(`${path.resolve(file)}\0${info.size}\0${info.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

export async function readLists(files: readonly string[]): Promise<string> {
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return texts.join('\n');
}

/** Write then rename, so a reader (another process sharing the cache) never sees half a file. */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, file);
}
