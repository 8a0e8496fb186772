import type { S3Client } from '@aws-sdk/client-s3';
import { isStorageKey } from '../../core/storage.js';

/** One bucket under one prefix, and the clock its objects age by: what puts, reads and the sweeper share. */
export interface S3Bucket {
  client: S3Client;
  bucket: string;
  /** '' or `<prefix>/`. */
  prefix: string;
  /** The storage's lifetime of an object. */
  lifetimeMs: number;
  now: () => number;
  /** The object key of a storage key. */
  objectKey: (key: string) => string;
  /** Whether an object is one of the storage's: under the prefix, a storage key after it. */
  ours: (name: string | undefined) => name is string;
  /** Whether something dated `date` is older than the storage's lifetime. */
  expired: (date: Date | undefined) => boolean;
  /**
   * When an object stops being served: at the end of the storage's lifetime, or of its own when a
   * put gave it a longer one (its `Expires`). A shorter one is left to the sweeper's next rounds.
   */
  expiresAt: (head: { Expires?: Date; LastModified?: Date }) => number;
}

export function s3Bucket(client: S3Client, bucket: string, prefix: string, lifetimeMs: number, now: () => number): S3Bucket {
  const ageOf = (date: Date | undefined): number => now() - (date?.getTime() ?? now());
  return {
    client,
    bucket,
    prefix,
    lifetimeMs,
    now,
    objectKey: (key) => `${prefix}${key}`,
    ours: (name): name is string => name !== undefined && name.startsWith(prefix) && isStorageKey(name.slice(prefix.length)),
    expired: (date) => ageOf(date) > lifetimeMs,
    expiresAt: (head) => Math.max((head.LastModified?.getTime() ?? now()) + lifetimeMs, head.Expires?.getTime() ?? 0),
  };
}
