import { createReadStream } from 'node:fs';
import { DeleteObjectCommand, PutObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StoragePutOptions } from '../../core/storage.js';
import type { S3Bucket } from './bucket.js';
import { asStorageFailure } from './errors.js';

/**
 * Puts a capture's file: from memory in one request, from its temporary file in parts. An object
 * appears only whole, and a put abandoned by its capture leaves neither an object nor an
 * unfinished multipart upload.
 */
export async function putObject(
  at: S3Bucket,
  key: string,
  source: { data?: Buffer; path?: string },
  meta: { contentType: string; size: number },
  { signal, lifetimeMs }: StoragePutOptions,
): Promise<void> {
  const { client, bucket } = at;
  const params: PutObjectCommandInput = { Bucket: bucket, Key: at.objectKey(key), ContentType: meta.contentType, Expires: new Date(at.now() + (lifetimeMs ?? at.lifetimeMs)) };
  try {
    if (source.data) await client.send(new PutObjectCommand({ ...params, Body: source.data, ContentLength: source.data.length }));
    // The size is the file's (the encoder measured it), so the upload knows its parts in advance.
    else if (source.path) await uploadFile(client, source.path, meta.size, params, signal);
    else throw new Error('Nothing to store');
  } catch (error) {
    signal?.throwIfAborted();
    throw asStorageFailure(error);
  }
  if (signal?.aborted) {
    // The last request completed the object after the capture was given up: take it back.
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: params.Key })).catch(() => undefined);
    signal.throwIfAborted();
  }
}

async function uploadFile(client: S3Client, path: string, size: number, params: PutObjectCommandInput, signal: AbortSignal | undefined): Promise<void> {
  const body = createReadStream(path);
  const upload = new Upload({ client, params: { ...params, Body: body, ContentLength: size } });
  // Ending the body rather than `upload.abort()`: abort() rejects done() at once, while parts are
  // still in flight and before AbortMultipartUpload is sent. A failed body makes Upload wait for
  // its requests, abort the multipart upload and only then reject, so a settled put leaves nothing.
  const stop = (): void => void body.destroy(new Error('Upload abandoned: the capture was aborted'));
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await upload.done();
  } finally {
    signal?.removeEventListener('abort', stop);
    body.destroy();
  }
}
