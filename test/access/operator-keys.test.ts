import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryKeyStore, estimatedBits, MIN_SECRET_BITS, operatorLinkCredentials } from '../../src/access/index.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { resolveHttpOptions } from '../../src/http/http-options.js';
import { renderLink } from '../../src/http/render-link.js';
import { identifyByLink } from '../../src/http/signed-link.js';

const STRONG = randomBytes(32).toString('hex');
const OTHER_STRONG = randomBytes(32).toString('base64url');
const LINK_ID_SECRET = randomBytes(32).toString('base64url');

/** What `createMemoryKeyStore` threw, as text. */
function refusalOf(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('the strength of an operator key', () => {
  it('is length × log2 of the character classes the key uses', () => {
    expect(estimatedBits('my-secret-key')).toBeCloseTo(13 * Math.log2(26 + 33), 5);
    expect(estimatedBits('abc')).toBeCloseTo(3 * Math.log2(26), 5);
    expect(estimatedBits('aB3')).toBeCloseTo(3 * Math.log2(62), 5);
    expect(estimatedBits('ключ')).toBeCloseTo(4 * Math.log2(100), 5);
    expect(estimatedBits('')).toBe(0);
  });

  it('passes what `openssl rand -hex 32`, `keys generate` and 22 mixed base64url characters make, and fails short or one-class keys', () => {
    expect(estimatedBits(STRONG)).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
    expect(estimatedBits(OTHER_STRONG)).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
    expect(estimatedBits('Ab3_Ab3_Ab3_Ab3_Ab3_Ab')).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
    for (const weak of ['my-secret-key', 'k', 'a'.repeat(27), '1234567890'.repeat(3), 'correct-horse-battery']) expect(estimatedBits(weak), weak).toBeLessThan(MIN_SECRET_BITS);
  });
});

describe('operator keys in the memory store', () => {
  it('refuses a weak key at once, naming its position and how to make a good one, never the key', () => {
    const message = refusalOf(() => createMemoryKeyStore([{ key: STRONG, tier: 'PRO' }, { key: 'my-secret-key', tier: 'FREE' }]));
    expect(message).toMatch(/^Key 2 of 2 in apiKeys is too weak: about 76 bits/);
    expect(message).toContain('openssl rand -hex 32');
    expect(message).toContain('capture-engine keys generate');
    expect(message).toContain('allowWeakOperatorKeys');
    expect(message).not.toContain('my-secret-key');
    expect(refusalOf(() => createMemoryKeyStore([{ key: 'x', tier: 'PRO' }], { source: 'CAPTURE_API_KEYS' }))).toMatch(/^Key 1 of 1 in CAPTURE_API_KEYS is too weak/);
  });

  it('takes weak keys when told to, for tests', async () => {
    const store = createMemoryKeyStore([{ key: 'my-secret-key', tier: 'PRO' }], { allowWeakOperatorKeys: true });
    expect((await store.lookup('my-secret-key'))?.tier).toBe('PRO');
  });

  it('refuses a weak link id secret', () => {
    const message = refusalOf(() => createMemoryKeyStore([{ key: STRONG, tier: 'PRO' }], { linkIdSecret: 'hunter2' }));
    expect(message).toMatch(/^The link id secret \(CAPTURE_LINK_ID_SECRET, option linkIdSecret\) is too weak/);
    expect(message).not.toContain('hunter2');
  });

  it('names a key in links by an id keyed with the link id secret, which the key alone does not give', async () => {
    const plain = createMemoryKeyStore([{ key: STRONG, tier: 'PRO' }]);
    const keyed = createMemoryKeyStore([{ key: STRONG, tier: 'PRO' }], { linkIdSecret: LINK_ID_SECRET });
    const plainId = (await plain.lookup(STRONG))?.id as string;
    const keyedId = (await keyed.lookup(STRONG))?.id as string;
    expect(plainId).toBe(operatorLinkCredentials(STRONG).key);
    expect(keyedId).toMatch(/^key_[A-Za-z0-9_-]{12}$/);
    expect(keyedId).not.toBe(plainId);
    expect(keyedId).toBe(operatorLinkCredentials(STRONG, { linkIdSecret: LINK_ID_SECRET }).key);
    expect(keyedId).not.toBe(operatorLinkCredentials(STRONG, { linkIdSecret: randomBytes(32).toString('hex') }).key);
    expect(await keyed.lookupId(plainId)).toBeUndefined();
  });

  it('accepts the links of a key whose id is keyed, and refuses those named by its plain id', async () => {
    const store = createMemoryKeyStore([{ key: STRONG, tier: 'PRO' }], { linkIdSecret: LINK_ID_SECRET });
    const request = { method: 'GET', url: '/', headers: {}, remoteAddress: '127.0.0.1' };
    const callerOf = async (credentials: { key: string; signingSecret: string }): Promise<string> => {
      const search = new URL(renderLink({ baseUrl: 'http://x', ...credentials, params: { url: 'https://example.com' } })).searchParams;
      const caller = await identifyByLink(store, request, search);
      return caller.kind === 'account' ? `account ${caller.record.tier}` : caller.refusal.code;
    };
    expect(await callerOf(operatorLinkCredentials(STRONG, { linkIdSecret: LINK_ID_SECRET }))).toBe('account PRO');
    const id = (await store.lookup(STRONG))?.id as string;
    expect(await callerOf(operatorLinkCredentials(STRONG, { linkKey: id }))).toBe('account PRO');
    expect(await callerOf(operatorLinkCredentials(STRONG))).toBe('INVALID_API_KEY');
  });
});

describe('the HTTP service built with apiKeys', () => {
  const engine = { storage: undefined, log: silentLogger, timeoutMs: 1000 };

  it('does not start with a weak key unless allowWeakOperatorKeys, and keys ids with linkIdSecret', async () => {
    expect(() => resolveHttpOptions({ apiKeys: [{ key: 'my-secret-key', tier: 'PRO' }] }, engine)).toThrow(/^Key 1 of 1 in apiKeys is too weak/);
    const weak = resolveHttpOptions({ apiKeys: [{ key: 'my-secret-key', tier: 'PRO' }], allowWeakOperatorKeys: true }, engine);
    expect((await weak.keyStore.lookup('my-secret-key'))?.tier).toBe('PRO');
    const keyed = resolveHttpOptions({ apiKeys: [{ key: STRONG, tier: 'BASIC' }], linkIdSecret: LINK_ID_SECRET }, engine);
    expect((await keyed.keyStore.lookupId(operatorLinkCredentials(STRONG, { linkIdSecret: LINK_ID_SECRET }).key))?.tier).toBe('BASIC');
  });
});
