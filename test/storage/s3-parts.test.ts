import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateMultipartUploadCommand, DeleteObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Storage } from '../../src/storage/s3-storage.js';
import { serveFile } from '../../src/http/serve-file.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { startS3rver, type HandledRequest, type TestS3 } from '../helpers/s3rver.js';
import { closedPort } from '../helpers/ports.js';

/** The S3 storage on its own, against a real s3rver: parts, aborts, failures, expiry. */

const MiB = 1024 * 1024;
let s3: TestS3;
let dir: string;
const closing: { close?(): Promise<void> }[] = [];

beforeAll(async () => {
  s3 = await startS3rver();
  dir = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-s3-parts-'));
});
afterAll(async () => {
  for (const storage of closing) await storage.close?.();
  await s3?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A storage on the test's s3rver under its own prefix, closed after the file. */
const storageUnder = (prefix: string, extra: Partial<Parameters<typeof s3Storage>[0]> = {}): ReturnType<typeof s3Storage> => {
  const storage = s3Storage({ ...s3.connection, bucket: s3.bucket, prefix, ...extra } as Parameters<typeof s3Storage>[0]);
  closing.push(storage);
  return storage;
};
const read = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const request = (url: string): { method: 'GET'; url: string; headers: Record<string, string> } => ({ method: 'GET', url, headers: {} });

describe('S3 storage', () => {
  it('puts an image from memory with its type and expiry, and serves it whole and in ranges', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const storage = storageUnder('memory', { lifetimeMs: 3_600_000, now: () => now });
    const data = randomBytes(1000);
    await storage.put('2026-03-01/shot.png', { data }, { contentType: 'image/png', size: data.length });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'memory/2026-03-01/shot.png' }));
    expect(head).toMatchObject({ ContentType: 'image/png', ContentLength: 1000 });
    expect(head.Expires?.getTime()).toBe(now + 3_600_000);
    now = Date.now();
    const file = await storage.get('2026-03-01/shot.png');
    expect(file).toMatchObject({ size: 1000, contentType: 'image/png' });
    expect(file?.redirectUrl).toBeUndefined();
    expect(await read(file!.stream())).toEqual(data);
    expect(await read(file!.stream({ start: 10, end: 19 }))).toEqual(data.subarray(10, 20));
    expect(await storage.get('2026-03-01/other.png')).toBeUndefined();
  });

  it('keeps an object put with a longer lifetime than its own past the storage lifetime, and sweeps it after', async () => {
    let now = Date.now();
    const storage = storageUnder('long', { lifetimeMs: 3_600_000, now: () => now });
    await storage.put('cache/entry.png', { data: randomBytes(10) }, { contentType: 'image/png', size: 10 }, { lifetimeMs: 7_200_000 });
    await storage.put('2026-03-01/plain.png', { data: randomBytes(10) }, { contentType: 'image/png', size: 10 });
    now += 5_400_000;
    expect(await storage.get('cache/entry.png')).toBeDefined();
    expect(await storage.get('2026-03-01/plain.png')).toBeUndefined();
    expect(await storage.sweep()).toBe(1);
    expect(await storage.get('cache/entry.png')).toBeDefined();
    now += 1_801_000;
    expect(await storage.get('cache/entry.png')).toBeUndefined();
    expect(await storage.sweep()).toBe(1);
  });

  it('streams a video from its file in parts: the object is byte for byte the file', async () => {
    const storage = storageUnder('parts');
    const file = path.join(dir, 'twelve.mp4');
    const data = randomBytes(12 * MiB);
    writeFileSync(file, data);
    const parts: HandledRequest[] = [];
    const onRequest = (handled: HandledRequest): void => void (handled.method === 'PUT' && 'partNumber' in handled.query && parts.push(handled));
    s3.requests.on('handled', onRequest);
    await storage.put('2026-03-01/clip.mp4', { path: file }, { contentType: 'video/mp4', size: data.length }).finally(() => s3.requests.off('handled', onRequest));
    expect(parts.map((part) => Number(part.query.partNumber)).sort()).toEqual([1, 2, 3]);
    expect(await s3.uploads('parts/')).toEqual([]);
    const stored = await storage.get('2026-03-01/clip.mp4');
    expect(stored).toMatchObject({ size: 12 * MiB, contentType: 'video/mp4' });
    expect((await read(stored!.stream())).equals(data)).toBe(true);
    // Across the boundary of the first two parts.
    expect((await read(stored!.stream({ start: 5 * MiB - 3, end: 5 * MiB + 2 }))).equals(data.subarray(5 * MiB - 3, 5 * MiB + 3))).toBe(true);
  });

  it('gives up an upload whose capture is aborted: no object, no unfinished multipart upload', async () => {
    const storage = storageUnder('aborted');
    // A pipe: the upload reads what the test writes, so it is stopped half way, as a long video would be.
    const fifo = path.join(dir, 'growing.mp4');
    execFileSync('mkfifo', [fifo]);
    const controller = new AbortController();
    const seen: HandledRequest[] = [];
    const firstPart = new Promise<void>((resolve) => {
      s3.requests.on('handled', (handled) => {
        if (!handled.path.includes('/aborted/')) return;
        seen.push(handled);
        if (handled.method === 'PUT' && handled.query.partNumber === '1' && handled.status === 200) resolve();
      });
    });
    const put = storage.put('2026-03-01/long.mp4', { path: fifo }, { contentType: 'video/mp4', size: 20 * MiB }, { signal: controller.signal });
    const writer = createWriteStream(fifo);
    // Once the upload stops reading, the rest of the writes fail with EPIPE: expected.
    writer.on('error', () => undefined);
    const writerClosed = new Promise<void>((resolve) => writer.once('close', () => resolve()));
    writer.write(randomBytes(6 * MiB));
    await firstPart;
    // The first part is stored while the rest of the file does not exist yet: the upload streams.
    expect(await s3.uploads('aborted/')).toEqual(['aborted/2026-03-01/long.mp4']);
    const reason = captureErrors.clientGone();
    controller.abort(reason);
    // The rest of the file arrives after the abort: none of it may complete the object.
    writer.end(randomBytes(14 * MiB));
    await expect(put).rejects.toBe(reason);
    await writerClosed;
    expect(seen.filter((handled) => handled.method === 'POST' && 'uploadId' in handled.query)).toEqual([]);
    expect(seen.filter((handled) => handled.method === 'DELETE').map((handled) => handled.status)).toEqual([204]);
    expect(await s3.uploads('aborted/')).toEqual([]);
    expect(await s3.uploadDirectories()).toEqual([]);
    expect(await s3.keys('aborted/')).toEqual([]);
  });

  it('takes back an object its last request completed after the capture was aborted', async () => {
    const storage = storageUnder('late');
    const controller = new AbortController();
    // Abort while s3rver is answering the PutObject: the object exists once that request ends.
    const onRequest = (handled: HandledRequest): void => {
      if (handled.method === 'PUT' && handled.path.includes('/late/')) controller.abort(captureErrors.timedOut(1000));
    };
    s3.requests.on('handled', onRequest);
    const put = storage.put('2026-03-01/late.png', { data: randomBytes(100) }, { contentType: 'image/png', size: 100 }, { signal: controller.signal });
    await expect(put).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
    s3.requests.off('handled', onRequest);
    expect(await s3.keys('late/')).toEqual([]);
  });

  it('answers 503 storage_unavailable when S3 refuses connections or answers 5xx', async () => {
    const failing: Server = createServer((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const refused = s3Storage({ ...s3.connection, endpoint: `http://127.0.0.1:${await closedPort()}`, bucket: s3.bucket });
      const overloaded = s3Storage({ ...s3.connection, endpoint: `http://127.0.0.1:${(failing.address() as AddressInfo).port}`, bucket: s3.bucket });
      closing.push(refused, overloaded);
      const file = path.join(dir, 'small.mp4');
      writeFileSync(file, randomBytes(100));
      for (const storage of [refused, overloaded]) {
        const puts = [
          () => storage.put('2026-03-01/a.png', { data: Buffer.from('png') }, { contentType: 'image/png', size: 3 }),
          () => storage.put('2026-03-01/a.mp4', { path: file }, { contentType: 'video/mp4', size: 100 }),
        ];
        for (const put of puts) {
          const error = await put().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(CaptureError);
          expect(error).toMatchObject({ code: 'SERVICE_BUSY', status: 503, details: { reason: 'storage_unavailable' }, headers: { 'Retry-After': '5' } });
        }
        await expect(storage.get('2026-03-01/a.png')).rejects.toMatchObject({ code: 'SERVICE_BUSY', details: { reason: 'storage_unavailable' } });
        await expect(serveFile(storage, '2026-03-01/a.png', request('/api/files/2026-03-01/a.png'), false)).rejects.toMatchObject({ status: 503 });
      }
    } finally {
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('destroys the stream when the object goes away between HEAD and GET', async () => {
    const storage = storageUnder('gone');
    await storage.put('2026-03-01/gone.png', { data: Buffer.from('0123456789') }, { contentType: 'image/png', size: 10 });
    const file = await storage.get('2026-03-01/gone.png');
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'gone/2026-03-01/gone.png' }));
    const stream = file!.stream();
    await expect(read(stream)).rejects.toMatchObject({ name: 'NoSuchKey' });
    expect(stream.destroyed).toBe(true);
  });

  it('does not serve objects older than the lifetime, and sweeps them and abandoned uploads', async () => {
    let now = Date.now();
    const storage = storageUnder('expiry', { lifetimeMs: 3_600_000, now: () => now });
    await storage.put('2026-03-01/old.png', { data: Buffer.from('png') }, { contentType: 'image/png', size: 3 });
    // Not the storage's: a key of another shape under the prefix, and an object outside it.
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'expiry/notes.txt', Body: 'keep' }));
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'elsewhere/2026-03-01/old.png', Body: 'keep' }));
    // A multipart upload whose put never cleaned up.
    await s3.client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: 'expiry/2026-03-01/lost.mp4' }));
    expect(await s3.uploads('expiry/')).toEqual(['expiry/2026-03-01/lost.mp4']);

    now += 3_600_000 - 60_000;
    expect(await storage.get('2026-03-01/old.png')).toMatchObject({ size: 3 });
    expect(await storage.sweep()).toBe(0);
    expect(await s3.uploads('expiry/')).toEqual(['expiry/2026-03-01/lost.mp4']);

    now += 120_000;
    expect(await storage.get('2026-03-01/old.png')).toBeUndefined();
    await expect(serveFile(storage, '2026-03-01/old.png', request('/api/files/2026-03-01/old.png'), false)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(await storage.sweep()).toBe(1);
    expect(await s3.keys('expiry/')).toEqual(['expiry/notes.txt']);
    expect(await s3.uploads('expiry/')).toEqual([]);
    expect(await s3.keys('elsewhere/')).toEqual(['elsewhere/2026-03-01/old.png']);
  });

  it('presigns a short-lived GET URL that serves the object itself, never beyond its lifetime', async () => {
    let now = Date.now();
    const storage = storageUnder('signed', { presign: true, lifetimeMs: 3_600_000, now: () => now });
    await storage.put('2026-03-01/signed.png', { data: Buffer.from('0123456789') }, { contentType: 'image/png', size: 10 });
    const file = await storage.get('2026-03-01/signed.png');
    const url = new URL(file?.redirectUrl ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.endpoint}/${s3.bucket}/signed/2026-03-01/signed.png`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^S3RVER\//);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('0123456789');
    const part = await fetch(url, { headers: { Range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('234');
    // 100 s of its lifetime left (a little less: S3 dates have whole seconds): the URL lasts no longer.
    now += 3_600_000 - 100_000;
    const late = new URL((await storage.get('2026-03-01/signed.png'))?.redirectUrl ?? '');
    expect(Number(late.searchParams.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(98);
    expect(Number(late.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(100);
  });

  it('refuses keys outside its shape', async () => {
    const storage = storageUnder('keys');
    await expect(storage.put('../x.png', { data: Buffer.from('x') }, { contentType: 'image/png', size: 1 })).rejects.toThrow(/Invalid storage key/);
    expect(await storage.get('../../etc/passwd')).toBeUndefined();
    expect(await storage.get('2026-03-01/../../x.png')).toBeUndefined();
  });
});
