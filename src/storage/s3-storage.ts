import { createReadStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { isStorageKey, type CaptureStorage, type StoragePutOptions, type StoredFile } from '../core/storage.js';
import { contentTypeOf } from '../core/schema/formats.js';
import { DEFAULTS } from '../core/defaults.js';
import { asStorageFailure, isMissing, isNotImplemented } from './s3-errors.js';
import { createS3Client, flag, normalizePrefix } from './s3-client.js';

interface S3StorageSettings {
  /** The bucket, which must exist. */
  bucket: string;
  /** Objects are `<prefix>/<date>/<id>.<ext>`; the sweeper only touches keys of that shape under it. @default '' */
  prefix?: string;
  /**
   * The files endpoint answers `302` to a presigned GET URL of the object instead of streaming it
   * through the service (the endpoint must then be reachable by the clients). @default false
   */
  presign?: boolean;
  /** Validity of presigned URLs in seconds, never beyond the file's lifetime. @default 300 */
  presignExpiresIn?: number;
  /** Objects older than this are not served and are swept. @default DEFAULTS.fileLifetimeMs (24 h) */
  lifetimeMs?: number;
  /** How often expired objects are swept. @default 10 minutes */
  sweepIntervalMs?: number;
  /** The clock objects age by (tests move it). @default Date.now */
  now?: () => number;
}

/** Where the storage builds its own client. */
interface S3Connection {
  client?: undefined;
  /** An S3-compatible endpoint (`http://minio:9000`); AWS when omitted. */
  endpoint?: string;
  /** @default the SDK's chain (`AWS_REGION`, ...), `us-east-1` with an `endpoint` */
  region?: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>` (most S3-compatible servers). @default false */
  forcePathStyle?: boolean;
  /** @default the SDK's standard chain (environment, shared files, instance roles, ...) */
  credentials?: S3ClientConfig['credentials'];
}

/** A client of the caller's, used as it is and left open by `close()`. */
interface S3OwnClient {
  client: S3Client;
  endpoint?: never;
  region?: never;
  forcePathStyle?: never;
  credentials?: never;
}

export type S3StorageOptions = S3StorageSettings & (S3Connection | S3OwnClient);

export type S3Storage = CaptureStorage & {
  /** Deletes the expired objects under the prefix (and abandoned multipart uploads); returns how many objects. */
  sweep(): Promise<number>;
};

const PRESIGN_EXPIRES_IN_S = 300;

/**
 * Captures in an S3-compatible bucket. Images are put from memory, videos streamed from their
 * temporary file in parts; an object appears only whole, and a put abandoned by its capture leaves
 * neither an object nor an unfinished multipart upload. A storage that is down answers
 * `503 SERVICE_BUSY` (`reason: storage_unavailable`).
 */
export function s3Storage(options: S3StorageOptions): S3Storage {
  const { bucket } = options;
  const client = options.client ?? createS3Client(options);
  const prefix = normalizePrefix(options.prefix);
  const objectKey = (key: string): string => `${prefix}${key}`;
  const lifetimeMs = options.lifetimeMs ?? DEFAULTS.fileLifetimeMs;
  const now = options.now ?? Date.now;
  const ageOf = (date: Date | undefined): number => now() - (date?.getTime() ?? now());
  const expired = (date: Date | undefined): boolean => ageOf(date) > lifetimeMs;
  /**
   * When an object stops being served: at the end of the storage's lifetime, or of its own when a
   * put gave it a longer one (its `Expires`). A shorter one is left to the sweeper's next rounds.
   */
  const expiresAt = (head: { Expires?: Date; LastModified?: Date }): number =>
    Math.max((head.LastModified?.getTime() ?? now()) + lifetimeMs, head.Expires?.getTime() ?? 0);
  /**
   * Objects put with a longer lifetime than the storage's, and when they expire: a listing shows
   * no `Expires`, so the sweeper reads each such object's head once, not on every sweep.
   */
  const longLived = new Map<string, number>();
  const ours = (name: string | undefined): name is string => name !== undefined && name.startsWith(prefix) && isStorageKey(name.slice(prefix.length));
  /** Puts still settling (an abandoned one cleans up after its capture has answered); close() waits for them. */
  const pending = new Set<Promise<unknown>>();

  const uploadFile = async (path: string, size: number, params: PutObjectCommandInput, signal: AbortSignal | undefined): Promise<void> => {
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
  };

  const put = async (key: string, source: { data?: Buffer; path?: string }, meta: { contentType: string; size: number }, { signal, lifetimeMs: ownLifetimeMs }: StoragePutOptions): Promise<void> => {
    const params: PutObjectCommandInput = { Bucket: bucket, Key: objectKey(key), ContentType: meta.contentType, Expires: new Date(now() + (ownLifetimeMs ?? lifetimeMs)) };
    try {
      if (source.data) await client.send(new PutObjectCommand({ ...params, Body: source.data, ContentLength: source.data.length }));
      // The size is the file's (the encoder measured it), so the upload knows its parts in advance.
      else if (source.path) await uploadFile(source.path, meta.size, params, signal);
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
  };

  /** Bytes of an object as a stream returned at once, fed by a GetObject; its errors destroy it. */
  const streamObject = (key: string, range?: { start: number; end: number }): Readable => {
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
  };

  /** Multipart uploads under the prefix that were never completed nor aborted (their put failed to clean up). */
  const abortStaleUploads = async (): Promise<void> => {
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix || undefined, ...markers }));
      for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
        if (ours(Key) && UploadId && expired(Initiated)) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }));
      }
      if (!page.IsTruncated) return;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  };

  const pastItsOwnExpiry = async (Key: string): Promise<boolean> => {
    let until = longLived.get(Key);
    if (until === undefined) {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key })).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
      if (!head) return false;
      until = expiresAt(head);
    }
    if (until > now()) {
      longLived.set(Key, until);
      return false;
    }
    longLived.delete(Key);
    return true;
  };

  const sweep = async (): Promise<number> => {
    let removed = 0;
    let token: string | undefined;
    do {
      // A page holds at most 1,000 keys, as many as one DeleteObjects takes.
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }));
      const old: { Key: string }[] = [];
      for (const object of page.Contents ?? []) {
        if (ours(object.Key) && expired(object.LastModified) && (await pastItsOwnExpiry(object.Key))) old.push({ Key: object.Key });
      }
      if (old.length > 0) {
        const { Errors } = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: old, Quiet: true } }));
        removed += old.length - (Errors?.length ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    await abortStaleUploads().catch((error: unknown) => {
      if (!isNotImplemented(error)) throw error;
    });
    return removed;
  };
  const timer = setInterval(() => void sweep().catch(() => undefined), options.sweepIntervalMs ?? DEFAULTS.storageSweepIntervalMs);
  timer.unref();

  return {
    name: 'storage-s3',
    async put(key, source, meta, putOptions: StoragePutOptions = {}) {
      if (!isStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
      putOptions.signal?.throwIfAborted();
      const task = put(key, source, meta, putOptions);
      pending.add(task);
      void task.catch(() => undefined).finally(() => pending.delete(task));
      return task;
    },
    async get(key): Promise<StoredFile | undefined> {
      if (!isStorageKey(key)) return undefined;
      const Key = objectKey(key);
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
        const remainingMs = expiresAt(head) - now();
        if (remainingMs < 0) return undefined;
        // The key decides the type, as on disk: an object under the prefix cannot choose its own.
        const file: StoredFile = { size: head.ContentLength ?? 0, contentType: contentTypeOf(key), stream: (range) => streamObject(Key, range) };
        if (options.presign) {
          const expiresIn = Math.max(1, Math.min(options.presignExpiresIn ?? PRESIGN_EXPIRES_IN_S, Math.floor(remainingMs / 1000)));
          file.redirectUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key }), { expiresIn });
        }
        return file;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw asStorageFailure(error);
      }
    },
    async close() {
      clearInterval(timer);
      await Promise.allSettled([...pending]);
      if (!options.client) client.destroy();
    },
    sweep,
  };
}

/**
 * The storage `CAPTURE_S3_*` describe, or undefined without `CAPTURE_S3_BUCKET`: `CAPTURE_S3_ENDPOINT`,
 * `CAPTURE_S3_REGION`, `CAPTURE_S3_PREFIX`, `CAPTURE_S3_FORCE_PATH_STYLE`, `CAPTURE_S3_PRESIGN`
 * (`true`/`false`/`1`/`0`). Credentials come from the SDK's chain (`AWS_ACCESS_KEY_ID`, ...).
 */
export function s3StorageFromEnv(
  env: Record<string, string | undefined> = process.env,
  options: Pick<S3StorageOptions, 'lifetimeMs' | 'sweepIntervalMs'> = {},
): S3Storage | undefined {
  const value = (name: string): string | undefined => env[name]?.trim() || undefined;
  const bucket = value('CAPTURE_S3_BUCKET');
  if (!bucket) return undefined;
  return s3Storage({
    ...options,
    bucket,
    endpoint: value('CAPTURE_S3_ENDPOINT'),
    region: value('CAPTURE_S3_REGION'),
    prefix: value('CAPTURE_S3_PREFIX'),
    forcePathStyle: flag('CAPTURE_S3_FORCE_PATH_STYLE', value('CAPTURE_S3_FORCE_PATH_STYLE')),
    presign: flag('CAPTURE_S3_PRESIGN', value('CAPTURE_S3_PRESIGN')),
  });
}
