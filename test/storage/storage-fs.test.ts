import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsStorage } from '../../src/storage/fs-storage.js';

const made: string[] = [];
const dir = (): string => {
  const created = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-storage-'));
  made.push(created);
  return created;
};
afterAll(() => {
  for (const created of made) rmSync(created, { recursive: true, force: true });
});
const read = async (stream: NodeJS.ReadableStream): Promise<string> => {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
};

describe('filesystem storage', () => {
  it('stores from memory and from a file, and serves byte ranges', async () => {
    const storage = createFsStorage({ dir: dir() });
    await storage.put('2026-11-22/abc.png', { data: Buffer.from('0123456789') }, { contentType: 'image/png', size: 10 });
    const file = await storage.get('2026-11-22/abc.png');
    expect(file).toMatchObject({ size: 10, contentType: 'image/png' });
    expect(await read(file!.stream({ start: 2, end: 4 }))).toBe('234');
    await storage.close?.();
  });

  it('expires files after their lifetime and sweeps them from disk', async () => {
    const root = dir();
    let now = Date.now();
    const storage = createFsStorage({ dir: root, lifetimeMs: 60_000, now: () => now });
    await storage.put('2026-11-22/old.mp4', { data: Buffer.from('x') }, { contentType: 'video/mp4', size: 1 });
    now += 59_000;
    expect(await storage.get('2026-11-22/old.mp4')).toBeDefined();
    expect(await storage.sweep()).toBe(0);
    now += 2_000;
    expect(await storage.get('2026-11-22/old.mp4')).toBeUndefined();
    expect(await storage.sweep()).toBe(1);
    expect(readdirSync(root)).toEqual([]);
    await storage.close?.();
  });

  it('keeps a file put with its own lifetime for that long, longer or shorter than the storage lifetime', async () => {
    const root = dir();
    let now = Date.now();
    const storage = createFsStorage({ dir: root, lifetimeMs: 60_000, now: () => now });
    await storage.put('cache/long.png', { data: Buffer.from('x') }, { contentType: 'image/png', size: 1 }, { lifetimeMs: 600_000 });
    await storage.put('cache/short.png', { data: Buffer.from('x') }, { contentType: 'image/png', size: 1 }, { lifetimeMs: 10_000 });
    now += 11_000;
    expect(await storage.get('cache/short.png')).toBeUndefined();
    now += 110_000;
    expect(await storage.get('cache/long.png')).toBeDefined();
    expect(await storage.sweep()).toBe(1);
    now += 480_000;
    expect(await storage.get('cache/long.png')).toBeUndefined();
    expect(await storage.sweep()).toBe(1);
    await storage.close?.();
  });

  it('refuses keys outside its shape', async () => {
    const storage = createFsStorage({ dir: dir() });
    await expect(storage.put('../x.png', { data: Buffer.from('x') }, { contentType: 'image/png', size: 1 })).rejects.toThrow(/Invalid storage key/);
    expect(await storage.get('../../etc/passwd')).toBeUndefined();
    await storage.close?.();
  });
});
