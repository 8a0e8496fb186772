import type { Readable } from 'node:stream';

/** A stored file as the files endpoint serves it. */
export interface StoredFile {
  size: number;
  contentType: string;
  /**
   * Where the file can be fetched directly for a short while (a presigned URL): the files endpoint
   * then answers `302` to it instead of streaming the bytes itself.
   */
  redirectUrl?: string;
  /** Bytes `start..end` inclusive (whole file when omitted). */
  stream(range?: { start: number; end: number }): Readable;
}

/**
 * Where `response_type=json` puts finished captures. Keys are `<folder>/<id>.<ext>`, made only of
 * URL-safe characters; a storage must never serve anything outside its own keys.
 */
export interface CaptureStorage {
  readonly name: string;
  /**
   * Stores bytes from memory or from a temporary file; a failed put leaves nothing behind. When
   * `signal` (the capture's) aborts, the put stops and settles only once nothing of it is left.
   */
  put(key: string, source: { data?: Buffer; path?: string }, meta: { contentType: string; size: number }, options?: StoragePutOptions): Promise<void>;
  /** The file under `key`, or undefined when unknown or expired. */
  get(key: string): Promise<StoredFile | undefined>;
  close?(): Promise<void>;
}

export interface StoragePutOptions {
  /** The capture's signal: aborting it abandons the put. */
  signal?: AbortSignal;
  /**
   * This file's lifetime instead of the storage's (the result cache keeps entries for their
   * `cache_ttl`). A storage may keep a file longer than asked, never shorter.
   */
  lifetimeMs?: number;
}

/** A storage key is `<folder>/<id>.<ext>`: one level, URL-safe characters, no dots but the extension. */
export const STORAGE_KEY = /^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\.[a-z0-9]{2,5}$/;

export function isStorageKey(key: string): boolean {
  return STORAGE_KEY.test(key);
}
