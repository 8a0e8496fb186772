import { parseArgs } from 'node:util';
import { isTierName, newSigningSecret, type ManagedKeyStore, type TierName } from '../access/index.js';
import { managedKeyStoreFromEnv } from './key-stores.js';
import { UsageError } from './exit-codes.js';

const USAGE = `capture-engine keys create --tier FREE|BASIC|PRO|ENTERPRISE [--name NAME] [--signed-only]
capture-engine keys list
capture-engine keys revoke PREFIX
capture-engine keys set-tier PREFIX TIER
capture-engine keys rotate-signing PREFIX
capture-engine keys generate
Keys live in CAPTURE_KEYS_FILE (a JSON file) or, without it, in Redis at CAPTURE_REDIS_URL. \`generate\`
needs neither: it prints 256 random bits for a key of CAPTURE_API_KEYS or for CAPTURE_LINK_ID_SECRET.`;

/** `capture-engine keys ...`: manage the keys a running service accepts, without restarting it. */
export async function keys(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { tier: { type: 'string' }, name: { type: 'string' }, 'signed-only': { type: 'boolean' } } });
  const [command, prefix, tier] = positionals;
  if (command === 'generate') {
    process.stdout.write(`${newSigningSecret()}\n`);
    return;
  }
  let redis: import('ioredis').Redis | undefined;
  const store = await managedKeyStoreFromEnv(env, async () => {
    const { Redis } = await import('ioredis');
    redis = new Redis(env.CAPTURE_REDIS_URL as string, { maxRetriesPerRequest: 1 });
    return redis;
  });
  if (!store) throw new Error(`no key store: set CAPTURE_KEYS_FILE or CAPTURE_REDIS_URL\n${USAGE}`);
  try {
    await run(store, command, prefix, tier ?? values.tier, { name: values.name, signedOnly: values['signed-only'] });
  } finally {
    await store.close();
    await redis?.quit();
  }
}

async function run(store: ManagedKeyStore, command: string | undefined, prefix: string | undefined, tier: string | undefined, options: { name?: string; signedOnly?: boolean }): Promise<void> {
  if (command === 'create') {
    const { key, record } = await store.create(tierOf(tier), options);
    // The only time the key is shown: it is stored as a SHA-256 digest.
    process.stdout.write(`${key}\n${record.signingSecret}\n`);
    const traits = [record.tier, record.name, record.signedOnly ? 'signed links only' : undefined].filter(Boolean).join(', ');
    process.stderr.write(`created ${record.id} (${traits}): above, the API key (shown only once) and the signing secret of its render links\n`);
    return;
  }
  if (command === 'list') {
    const rows = (await store.list()).map((key) => [key.id, key.name ?? '', key.tier, key.created, key.revoked ?? '', key.signedOnly ? 'yes' : ''].join('\t'));
    process.stdout.write(`${['prefix', 'name', 'tier', 'created', 'revoked', 'signed-only'].join('\t')}\n${rows.map((row) => `${row}\n`).join('')}`);
    return;
  }
  if (command === 'rotate-signing' && prefix) {
    const secret = await store.rotateSigning(prefix);
    if (secret === undefined) throw new Error(`no key with prefix ${prefix}`);
    process.stdout.write(`${secret}\n`);
    process.stderr.write(`rotated the signing secret of ${prefix}: its earlier render links no longer work\n`);
    return;
  }
  if ((command === 'revoke' || command === 'set-tier') && prefix) {
    const found = command === 'revoke' ? await store.revoke(prefix) : await store.setTier(prefix, tierOf(tier));
    if (!found) throw new Error(`no key with prefix ${prefix}`);
    process.stdout.write(`${command === 'revoke' ? 'revoked' : `tier set to ${tier}`}: ${prefix}\n`);
    return;
  }
  throw new UsageError(command === undefined ? 'keys needs a command' : `keys ${[command, prefix].filter(Boolean).join(' ')}: not a keys command, or its PREFIX is missing`, USAGE);
}

function tierOf(value: string | undefined): TierName {
  const tier = value?.toUpperCase() ?? '';
  if (!isTierName(tier)) throw new Error(`--tier must be FREE, BASIC, PRO or ENTERPRISE, not ${value ?? 'nothing'}`);
  return tier;
}
