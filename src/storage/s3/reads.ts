import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { isStorageKey, type StoredFile } from '../../core/storage.js';
import { contentTypeOf } from '../../core/schema/formats.js';
import type { S3Bucket } from './bucket.js';
import { asStorageFailure, isMissing } from './errors.js';

const PRESIGN_EXPIRES_IN_S = 300;

/** Presigned GET URLs instead of streams, valid `expiresIn` seconds at most. */
export interface PresignSettings {
  presign?: boolean;
  presignExpiresIn?: number;
}

/** A stored capture still within its lifetime, streamed whole or by ranges, or undefined. */
export async function readObject(at: S3Bucket, key: string, { presign, presignExpiresIn }: PresignSettings): Promise<StoredFile | undefined> {
  if (!isStorageKey(key)) return undefined;
  const { client, bucket } = at;
  const Key = at.objectKey(key);
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
    const remainingMs = at.expiresAt(head) - at.now();
    if (remainingMs < 0) return undefined;
    // The key decides the type, as on disk: an object under the prefix cannot choose its own.
    const file: StoredFile = { size: head.ContentLength ?? 0, contentType: contentTypeOf(key), stream: (range) => streamObject(at, Key, range) };
    if (presign) {
      const expiresIn = Math.max(1, Math.min(presignExpiresIn ?? PRESIGN_EXPIRES_IN_S, Math.floor(remainingMs / 1000)));
      file.redirectUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key }), { expiresIn });
    }
    return file;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw asStorageFailure(error);
  }
}

/** Bytes of an object as a stream returned at once, fed by a GetObject; its errors destroy it. */
function streamObject({ client, bucket }: S3Bucket, key: string, range?: { start: number; end: number }): Readable {
  const out = new PassThrough();
  const request = new AbortController();
  out.once('close', () => request.abort());
  client
    .send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` }), { abortSignal: request.signal })
    .then(({ Body }) => {
      if (!Body) throw new Error(`No body for ${key}`);
      return pipeline(Body as Readable, out);
    })
    .catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}
