export { createFsStorage, type FsStorageOptions } from './fs-storage.js';
export { isStorageKey, STORAGE_KEY, type CaptureStorage, type StoredFile, type StoragePutOptions } from '../core/storage.js';
// S3-compatible storage is the subpath `capture-engine/storage/s3` (src/storage/s3-storage.ts): it
// loads the AWS SDK, which nothing else may.
export type { S3Storage, S3StorageOptions } from './s3-storage.js';
