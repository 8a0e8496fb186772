import { AbortMultipartUploadCommand, DeleteObjectsCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { S3Bucket } from './bucket.js';
import { isMissing, isNotImplemented } from './errors.js';

export interface S3Sweeper {
  /** One round now; returns how many objects it deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

/** Sweeps the bucket's expired objects (and abandoned multipart uploads) every `intervalMs`, and on demand. */
export function startSweeper(at: S3Bucket, intervalMs: number): S3Sweeper {
  const { client, bucket, prefix } = at;
  /**
   * Objects put with a longer lifetime than the storage's, and when they expire: a listing shows
   * no `Expires`, so the sweeper reads each such object's head once, not on every sweep.
   */
  const longLived = new Map<string, number>();

  /** Multipart uploads under the prefix that were never completed nor aborted (their put failed to clean up). */
  const abortStaleUploads = async (): Promise<void> => {
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix || undefined, ...markers }));
      for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
        if (at.ours(Key) && UploadId && at.expired(Initiated)) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }));
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
      until = at.expiresAt(head);
    }
    if (until > at.now()) {
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
        if (at.ours(object.Key) && at.expired(object.LastModified) && (await pastItsOwnExpiry(object.Key))) old.push({ Key: object.Key });
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

  const timer = setInterval(() => void sweep().catch(() => undefined), intervalMs);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
