import { createReadStream } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, rename, rm, rmdir, utimes, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { CaptureStorage, StoredFile } from '../core/storage.js';
import { isStorageKey } from '../core/storage.js';
import { contentTypeOf } from '../core/schema/formats.js';
import { DEFAULTS } from '../core/defaults.js';

export interface FsStorageOptions {
  /** Directory the files live in (created when missing). */
  dir: string;
  /** Files older than this are not served and are deleted. @default 86400000 (24 h) */
  lifetimeMs?: number;
  /** How often expired files are swept. @default 10 minutes */
  sweepIntervalMs?: number;
  /** The clock files age by (tests move it). @default Date.now */
  now?: () => number;
}

/**
 * Files on local disk. Keys are validated by shape before they touch a path, symlinks are never
 * followed, and a file appears only by an atomic rename, so a failed write leaves nothing.
 */
export function createFsStorage(options: FsStorageOptions): CaptureStorage & { sweep(): Promise<number> } {
  const root = path.resolve(options.dir);
  const lifetimeMs = options.lifetimeMs ?? DEFAULTS.fileLifetimeMs;
  const now = options.now ?? Date.now;
  const expired = (mtimeMs: number): boolean => now() - mtimeMs > lifetimeMs;

  const sweep = async (): Promise<number> => {
    let removed = 0;
    for (const folder of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!folder.isDirectory()) continue;
      const folderPath = path.join(root, folder.name);
      for (const file of await readdir(folderPath).catch(() => [] as string[])) {
        const filePath = path.join(folderPath, file);
        const stats = await lstat(filePath).catch(() => undefined);
        if (stats && expired(stats.mtimeMs)) {
          await rm(filePath, { force: true });
          removed++;
        }
      }
      await rmdir(folderPath).catch(() => undefined);
    }
    return removed;
  };
  const timer = setInterval(() => void sweep(), options.sweepIntervalMs ?? DEFAULTS.storageSweepIntervalMs);
  timer.unref();

  return {
    name: 'storage-fs',
    async put(key, source, _meta, putOptions = {}) {
      if (!isStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
      const target = path.join(root, key);
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = path.join(path.dirname(target), `.partial-${randomBytes(8).toString('hex')}`);
      try {
        if (source.data) await writeFile(temporary, source.data, { flag: 'wx' });
        else if (source.path) await copyFile(source.path, temporary);
        else throw new Error('Nothing to store');
        if (putOptions.lifetimeMs !== undefined) {
          // A file ages by its mtime; one that must live longer or shorter than the storage's
          // lifetime gets an mtime as far in the future or past, so serving and sweeping stay one rule.
          const mtime = new Date(now() + putOptions.lifetimeMs - lifetimeMs);
          await utimes(temporary, mtime, mtime);
        }
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key): Promise<StoredFile | undefined> {
      if (!isStorageKey(key)) return undefined;
      const filePath = path.join(root, key);
      if (!filePath.startsWith(root + path.sep)) return undefined;
      const stats = await lstat(filePath).catch(() => undefined);
      if (!stats?.isFile() || expired(stats.mtimeMs)) return undefined;
      return {
        size: stats.size,
        contentType: contentTypeOf(key),
        stream: (range) => createReadStream(filePath, range ? { start: range.start, end: range.end } : {}),
      };
    },
    async close() {
      clearInterval(timer);
    },
    sweep,
  };
}
