import { randomBytes } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isTierName, type TierName } from './tiers.js';
import { lookupDigest, newKey, toRecord, type ManagedKey, type ManagedKeyStore } from './managed-keys.js';

/** How often a running service looks at the file: a revocation takes effect within this. */
const WATCH_INTERVAL_MS = 250;

/**
 * Keys in a JSON file (`CAPTURE_KEYS_FILE`): SHA-256 digests, prefixes, names, tiers, times. Writes
 * go to a temporary file renamed over the old one, so a reader never sees half a file; a running
 * service re-reads the file when it changes (the CLI changes it).
 */
export function createFileKeyStore(file: string): ManagedKeyStore {
  let keys = readKeys(file);
  let byDigest = index(keys);
  const reload = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      keys = readKeys(file);
      byDigest = index(keys);
    } catch {
      // A file being replaced is read again on the next change; the last good keys stay.
    }
  };
  watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);

  const save = async (next: ManagedKey[]): Promise<void> => {
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ version: 1, keys: next }, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
    keys = next;
    byDigest = index(next);
  };
  const change = async (prefix: string, update: (key: ManagedKey) => ManagedKey): Promise<boolean> => {
    const current = readKeys(file);
    const found = current.some((key) => key.prefix === prefix);
    if (found) await save(current.map((key) => (key.prefix === prefix ? update(key) : key)));
    return found;
  };

  return {
    async lookup(key) {
      const digest = lookupDigest(key);
      const found = digest === undefined ? undefined : byDigest.get(digest);
      return found && toRecord(found);
    },
    async create(tier: TierName, name?: string) {
      const { key, prefix, digest } = newKey();
      const record: ManagedKey = { prefix, digest, tier, created: new Date().toISOString(), ...(name ? { name } : {}) };
      await save([...readKeys(file), record]);
      return { key, record };
    },
    list: async () => readKeys(file),
    revoke: (prefix) => change(prefix, (key) => ({ ...key, revoked: key.revoked ?? new Date().toISOString() })),
    setTier: (prefix, tier) => change(prefix, (key) => ({ ...key, tier })),
    async close() {
      unwatchFile(file, reload);
    },
  };
}

function readKeys(file: string): ManagedKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(parsed.keys)) throw new Error(`${file}: not a key file (no "keys" list)`);
  return parsed.keys.filter((key): key is ManagedKey => isManagedKey(key));
}

function isManagedKey(value: unknown): value is ManagedKey {
  const key = value as Partial<ManagedKey> | null;
  return typeof key?.prefix === 'string' && typeof key.digest === 'string' && typeof key.tier === 'string' && isTierName(key.tier);
}

function index(keys: readonly ManagedKey[]): Map<string, ManagedKey> {
  return new Map(keys.map((key) => [key.digest, key]));
}
