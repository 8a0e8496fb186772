import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readMultipartParams, type UploadLimits } from '../../src/http/multipart-body.js';
import type { HttpRequest } from '../../src/http/http-types.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

const LIMITS: UploadLimits = { fileBytes: 1000, totalBytes: 5000, files: 3 };

/** A FormData as the bytes and Content-Type a client sends. */
async function encode(form: FormData): Promise<{ bytes: Buffer; type: string }> {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { bytes: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type') as string };
}

/** A request whose body arrives in chunks of 256 bytes; `pulled()` says how many were read. */
function streamed(bytes: Buffer, type: string): { request: HttpRequest; pulled: () => number } {
  let pulled = 0;
  const chunks = Array.from({ length: Math.ceil(bytes.length / 256) }, (_, i) => bytes.subarray(i * 256, (i + 1) * 256));
  const stream = new Readable({
    highWaterMark: 256,
    read() {
      const chunk = chunks[pulled];
      pulled += 1;
      this.push(chunk ?? null);
    },
  });
  return { request: { method: 'POST', url: '/api/v1/capture', headers: { 'content-type': type }, stream }, pulled: () => pulled };
}

async function refusal(promise: Promise<unknown>): Promise<CaptureError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof CaptureError)) throw new Error(`expected a CaptureError, got ${String(error)}`);
  return error;
}

const uploadDirs = (): string[] => readdirSync(os.tmpdir()).filter((name) => name.startsWith('capture-upload-'));

const file = (name: string, size: number): [string, Blob, string] => ['files', new Blob([new Uint8Array(size).fill(97)]), name];

describe('multipart uploads', () => {
  it('reads fields as parameters, files to disk by their paths (the parameters name them by digest), and removes them', async () => {
    const form = new FormData();
    form.append('format', 'pdf');
    form.append('files', new Blob(['<img src="images/a.png">'], { type: 'text/html' }), 'index.html');
    form.append('files', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'images/a.png');
    form.append('files', new Blob(['x'], { type: 'application/x-thing' }), 'data');
    const { bytes, type } = await encode(form);
    const { params, uploads } = await readMultipartParams(streamed(bytes, type).request, LIMITS);
    onTestFinished(() => uploads.dispose());
    const digest = (content: string | Uint8Array): string => `sha256-${createHash('sha256').update(content).digest('base64url')}`;
    expect(params.format).toBe('pdf');
    expect(params.files).toEqual([
      { name: 'index.html', content: digest('<img src="images/a.png">') },
      { name: 'images/a.png', content: digest(new Uint8Array([1, 2, 3])) },
      // A name that says nothing of its type keeps the type the client sent.
      { name: 'data', content: digest('x'), type: 'application/x-thing' },
    ]);
    const onDisk = [...uploads.paths.values()];
    expect([...uploads.paths.keys()]).toEqual(['index.html', 'images/a.png', 'data']);
    expect(readFileSync(uploads.paths.get('images/a.png') as string)).toEqual(Buffer.from([1, 2, 3]));
    await uploads.dispose();
    expect(onDisk.filter((path) => existsSync(path))).toEqual([]);
  });

  // Issue 47: a refused upload leaves nothing on disk.
  it('leaves no file behind when it refuses a body', async () => {
    const before = uploadDirs();
    const form = new FormData();
    form.append(...file('index.html', 10));
    form.append(...file('big.bin', LIMITS.fileBytes + 1));
    const { bytes, type } = await encode(form);
    await refusal(readMultipartParams(streamed(bytes, type).request, LIMITS));
    expect(uploadDirs().filter((dir) => !before.includes(dir))).toEqual([]);
  });

  it('refuses a file, a field or a count over its limit, after reading the body to its end', async () => {
    const big = new FormData();
    big.append(...file('index.html', 10));
    big.append(...file('big.bin', LIMITS.fileBytes + 1));
    const bigBody = await encode(big);
    const bigRequest = streamed(bigBody.bytes, bigBody.type);
    expect(await refusal(readMultipartParams(bigRequest.request, LIMITS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: LIMITS.fileBytes } });
    expect(bigRequest.request.stream?.readableEnded).toBe(true);

    const field = new FormData();
    field.append('html', 'x'.repeat(LIMITS.fileBytes + 1));
    const fieldBody = await encode(field);
    expect(await refusal(readMultipartParams(streamed(fieldBody.bytes, fieldBody.type).request, LIMITS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining("Field 'html'") });

    const many = new FormData();
    for (let i = 0; i <= LIMITS.files; i++) many.append(...file(`${i}.css`, 1));
    const manyBody = await encode(many);
    expect(await refusal(readMultipartParams(streamed(manyBody.bytes, manyBody.type).request, LIMITS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: LIMITS.files } });
  });

  it('stops reading a body as soon as it grows past the whole limit', async () => {
    const form = new FormData();
    for (let i = 0; i < 3; i++) form.append(...file(`part${i}.bin`, 900));
    form.append('html', 'x'.repeat(900));
    for (let i = 0; i < 4; i++) form.append(`field${i}`, 'y'.repeat(900));
    const { bytes, type } = await encode(form);
    expect(bytes.length).toBeGreaterThan(LIMITS.totalBytes + 1000);
    const { request, pulled } = streamed(bytes, type);
    expect(await refusal(readMultipartParams(request, LIMITS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: LIMITS.totalBytes } });
    // The stream's own read-ahead (one chunk) is all that is read past the limit.
    expect(pulled() * 256).toBeLessThanOrEqual(LIMITS.totalBytes + 2 * 256);
  });

  it('refuses a malformed body, and one that ends too soon', async () => {
    const garbage = streamed(Buffer.from('not multipart'), 'multipart/form-data');
    expect(await refusal(readMultipartParams(garbage.request, LIMITS))).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'body' } });

    const form = new FormData();
    form.append(...file('index.html', 600));
    const { bytes, type } = await encode(form);
    const cut = streamed(bytes.subarray(0, 300), type);
    cut.request.stream?.once('data', () => setImmediate(() => cut.request.stream?.destroy()));
    expect(await refusal(readMultipartParams(cut.request, LIMITS))).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'body' } });
  });
});
