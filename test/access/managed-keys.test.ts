import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileKeyStore, createRedisKeyStore, type ManagedKeyStore } from '../../src/access/index.js';
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

  it('shares keys between instances, and both refuse a revoked one', async () => {
    const [admin, first, second] = [redis.client(), redis.client(), redis.client()].map((client) => createRedisKeyStore(client));
    await revocationReachesOtherInstances(admin as ManagedKeyStore, [first as ManagedKeyStore, second as ManagedKeyStore]);
  });
});
