import { randomBytes } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isTierName } from '../tiers.js';
import type { ApiKey, ManagedKeyStore } from './api-key.js';
import { fromStored, managedKeyStore, type ManagedKeyOptions } from './managed-key-store.js';

/** How often a running service looks at the file: a revocation takes effect within this. */
const WATCH_INTERVAL_MS = 250;

/**
 * Keys in a JSON file (`CAPTURE_KEYS_FILE`): SHA-256 digests, ids, names, tiers, times. Writes
 * go to a temporary file renamed over the old one, so a reader never sees half a file; a running
 * service re-reads the file when it changes (the CLI changes it).
 */
export function createFileKeyStore(file: string, options: ManagedKeyOptions = {}): ManagedKeyStore {
  let known = index(readKeys(file));
  const reload = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      known = index(readKeys(file));
    } catch {
      // A file being replaced is read again on the next change; the last good keys stay.
    }
  };
  watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);

  const save = async (next: ApiKey[]): Promise<void> => {
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ version: 2, keys: next }, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
    known = index(next);
  };
  // Each change reads the file, then writes it a few awaits later: one at a time, or a change
  // between the two would be lost (and two keys could take one id). Another process writing the
  // file meanwhile is not held off: there is no lock.
  let lastChange: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(change: () => Promise<T>): Promise<T> => {
    const next = lastChange.then(change, change);
    lastChange = next.catch(() => undefined);
    return next;
  };
  return managedKeyStore(
    {
      byDigest: async (digest) => known.byDigest.get(digest),
      lookupId: async (id) => known.byId.get(id),
      byId: async (id) => readKeys(file).find((key) => key.id === id),
      put: (key) =>
        oneAtATime(async () => {
          const current = readKeys(file);
          const known = current.some((entry) => entry.id === key.id);
          await save(known ? current.map((entry) => (entry.id === key.id ? key : entry)) : [...current, key]);
        }),
      add: (key) =>
        oneAtATime(async () => {
          const current = readKeys(file);
          if (current.some((entry) => entry.id === key.id)) return false;
          await save([...current, key]);
          return true;
        }),
      all: async () => readKeys(file),
      async close() {
        unwatchFile(file, reload);
      },
    },
    options,
  );
}

function readKeys(file: string): ApiKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(parsed.keys)) throw new Error(`${file}: not a key file (no "keys" list)`);
  return parsed.keys.map(fromStored).filter((key): key is ApiKey => key !== undefined && isTierName(key.tier));
}

function index(keys: readonly ApiKey[]): { byDigest: Map<string, ApiKey>; byId: Map<string, ApiKey> } {
  return { byDigest: new Map(keys.map((key) => [key.digest, key])), byId: new Map(keys.map((key) => [key.id, key])) };
}
