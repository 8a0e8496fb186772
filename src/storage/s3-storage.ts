import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { isStorageKey, type CaptureStorage, type StoragePutOptions } from '../core/storage.js';
import { DEFAULTS } from '../core/defaults.js';
import { createS3Client, flag, normalizePrefix } from './s3/client.js';
import { s3Bucket } from './s3/bucket.js';
import { putObject } from './s3/upload.js';
import { readObject } from './s3/reads.js';
import { startSweeper } from './s3/sweeper.js';

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

/**
 * Captures in an S3-compatible bucket. Images are put from memory, videos streamed from their
 * temporary file in parts; an object appears only whole, and a put abandoned by its capture leaves
 * neither an object nor an unfinished multipart upload. A storage that is down answers
 * `503 SERVICE_BUSY` (`reason: storage_unavailable`).
 */
export function s3Storage(options: S3StorageOptions): S3Storage {
  const client = options.client ?? createS3Client(options);
  const at = s3Bucket(client, options.bucket, normalizePrefix(options.prefix), options.lifetimeMs ?? DEFAULTS.fileLifetimeMs, options.now ?? Date.now);
  /** Puts still settling (an abandoned one cleans up after its capture has answered); close() waits for them. */
  const pending = new Set<Promise<unknown>>();
  const sweeper = startSweeper(at, options.sweepIntervalMs ?? DEFAULTS.storageSweepIntervalMs);

  return {
    name: 'storage-s3',
    async put(key, source, meta, putOptions: StoragePutOptions = {}) {
      if (!isStorageKey(key)) throw new Error(`Invalid storage key ${key}`);
      putOptions.signal?.throwIfAborted();
      const task = putObject(at, key, source, meta, putOptions);
      pending.add(task);
      void task.catch(() => undefined).finally(() => pending.delete(task));
      return task;
    },
    get: (key) => readObject(at, key, options),
    async close() {
      sweeper.stop();
      await Promise.allSettled([...pending]);
      if (!options.client) client.destroy();
    },
    sweep: sweeper.sweep,
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
