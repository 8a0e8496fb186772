import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileKeyStore, createMemoryKeyStore, createRedisKeyStore, type ManagedKeyOptions, type ManagedKeyStore } from '../../src/access/index.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/wait.js';

/** Keys made, re-tiered and revoked by one store (the CLI) reach the others (running services). */
async function revocationReachesOtherInstances(admin: ManagedKeyStore, instances: ManagedKeyStore[]): Promise<void> {
  const { key, record } = await admin.create('PRO', { name: 'ci' });
  expect(key).toMatch(new RegExp(`^${record.id}_[A-Za-z0-9_-]{43}$`));
  expect(record.signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  for (const instance of instances) {
    await until(async () => (await instance.lookup(key)) !== undefined, 'the new key to reach a running instance');
    expect(await instance.lookup(key)).toEqual(record);
    await until(async () => (await instance.lookupId(record.id)) !== undefined, 'the new key to be found by its id');
    expect(await instance.lookupId(record.id)).toEqual(record);
  }
  const rotated = await admin.rotateSigning(record.id);
  expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(rotated).not.toBe(record.signingSecret);
  expect(await admin.rotateSigning('ce_nosuchkey')).toBeUndefined();
  for (const instance of instances) {
    await until(async () => (await instance.lookupId(record.id))?.signingSecret === rotated, 'the new signing secret to reach a running instance');
  }
  expect(await admin.setTier(record.id, 'BASIC')).toBe(true);
  expect(await admin.revoke(record.id)).toBe(true);
  expect(await admin.revoke('ce_nosuchkey')).toBe(false);
  for (const instance of instances) {
    await until(async () => (await instance.lookup(key))?.revoked !== undefined, 'the revocation to reach a running instance');
  }
  const listed = await admin.list();
  expect(listed.find((entry) => entry.id === record.id)).toMatchObject({ tier: 'BASIC', name: 'ci', revoked: expect.any(String) });
  expect(JSON.stringify(listed)).not.toContain(key);
}

/** An id as `keys create` makes them, new for each test: the Redis server is shared by the file's tests. */
const freshId = (): string => `ce_${randomBytes(6).toString('base64url')}`;

/** A key generator that hands out these ids in turn, then the last one for ever: collisions on demand. */
function idsInTurn(...ids: string[]): NonNullable<ManagedKeyOptions['generateKey']> {
  let next = 0;
  return () => {
    const id = ids[Math.min(next++, ids.length - 1)] as string;
    const key = `${id}_${randomBytes(32).toString('base64url')}`;
    return { key, id, digest: createHash('sha256').update(key).digest('hex') };
  };
}

/**
 * `first` makes a key with id A; `second`, whose generator offers A again and then B, must not
 * replace it but take B. A store whose generator offers nothing but A gives up.
 */
async function collisionsTakeANewId(makeStore: (options: ManagedKeyOptions) => ManagedKeyStore): Promise<void> {
  const [a, b] = [freshId(), freshId()];
  const first = makeStore({ generateKey: idsInTurn(a) });
  const second = makeStore({ generateKey: idsInTurn(a, b) });
  const stuck = makeStore({ generateKey: idsInTurn(a) });
  try {
    const made = await first.create('PRO', { name: 'first' });
    expect(made.record.id).toBe(a);
    const next = await second.create('FREE', { name: 'second' });
    expect(next.record.id).toBe(b);
    await expect(stuck.create('ENTERPRISE')).rejects.toThrow(/no free key id after 5 tries/);
    for (const store of [first, second]) {
      await until(async () => (await store.lookup(next.key)) !== undefined, 'the second key to be found');
      expect(await store.lookup(made.key)).toEqual(made.record);
      expect(await store.lookup(next.key)).toEqual(next.record);
    }
    expect(await second.lookupId(a)).toEqual(made.record);
    const listed = (await first.list()).filter((key) => key.id === a || key.id === b);
    expect(listed.map((key) => [key.id, key.name, key.tier]).sort()).toEqual([[a, 'first', 'PRO'], [b, 'second', 'FREE']].sort());
  } finally {
    await Promise.all([first.close(), second.close(), stuck.close()]);
  }
}

describe('memory key store', () => {
  it('never gives a new key the id of one it holds', async () => {
    const shared = createMemoryKeyStore([], { generateKey: idsInTurn('ce_aaaaaaaa', 'ce_aaaaaaaa', 'ce_bbbbbbbb', 'ce_bbbbbbbb') });
    const first = await shared.create('PRO');
    const second = await shared.create('FREE');
    expect([first.record.id, second.record.id]).toEqual(['ce_aaaaaaaa', 'ce_bbbbbbbb']);
    expect(await shared.lookup(first.key)).toEqual(first.record);
    await expect(shared.create('BASIC')).rejects.toThrow(/no free key id/);
    expect(await shared.list()).toHaveLength(2);
  });
});

describe('file key store', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-keys-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a key file of an earlier version, whose ids were called prefixes', async () => {
    const file = path.join(dir, 'old-keys.json');
    const key = 'ce_oldkey01_secret-of-an-earlier-version';
    const digest = createHash('sha256').update(key).digest('hex');
    writeFileSync(file, JSON.stringify({ version: 1, keys: [{ prefix: 'ce_oldkey01', digest, tier: 'BASIC', created: '2026-01-01T00:00:00.000Z' }] }));
    const store = createFileKeyStore(file);
    try {
      expect(await store.lookup(key)).toEqual({ id: 'ce_oldkey01', digest, tier: 'BASIC', created: '2026-01-01T00:00:00.000Z' });
      expect(await store.revoke('ce_oldkey01')).toBe(true);
      expect((await store.list())[0]).toMatchObject({ id: 'ce_oldkey01', revoked: expect.any(String) });
    } finally {
      await store.close();
    }
  });

  it('retries with a new id when the id it made is taken, and keeps every key of keys made at once', async () => {
    const file = path.join(dir, 'colliding-keys.json');
    await collisionsTakeANewId((options) => createFileKeyStore(file, options));
    const store = createFileKeyStore(file);
    try {
      const made = await Promise.all(Array.from({ length: 8 }, () => store.create('BASIC')));
      const listed = await store.list();
      for (const { record } of made) expect(listed).toContainEqual(record);
    } finally {
      await store.close();
    }
  });

  it('creates keys shown once, stores digests only, and a running instance sees revocations', async () => {
    const file = path.join(dir, 'keys.json');
    const admin = createFileKeyStore(file);
    const service = createFileKeyStore(file);
    try {
      await revocationReachesOtherInstances(admin, [service]);
      expect(readFileSync(file, 'utf8')).toMatch(/"digest": "[0-9a-f]{64}"/);
    } finally {
      await admin.close();
      await service.close();
    }
  });
});

describe('Redis key store', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.stop());

  it('retries with a new id when another instance holds the id it made (HSETNX)', async () => {
    await collisionsTakeANewId((options) => createRedisKeyStore(redis.client(), options));
  });

  it('gives an id to one of two instances making it at the same moment', async () => {
    const id = freshId();
    const [left, right] = [redis.client(), redis.client()].map((client) => createRedisKeyStore(client, { generateKey: idsInTurn(id, freshId()) })) as [ManagedKeyStore, ManagedKeyStore];
    const made = await Promise.all([left.create('PRO'), right.create('PRO')]);
    expect(made.filter(({ record }) => record.id === id)).toHaveLength(1);
    for (const { key, record } of made) expect(await left.lookup(key)).toEqual(record);
  });

  it('shares keys between instances, and both refuse a revoked one', async () => {
    const [admin, first, second] = [redis.client(), redis.client(), redis.client()].map((client) => createRedisKeyStore(client));
    await revocationReachesOtherInstances(admin as ManagedKeyStore, [first as ManagedKeyStore, second as ManagedKeyStore]);
  });
});
