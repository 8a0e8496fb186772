export { createFsStorage, type FsStorageOptions } from './fs-storage.js';
export { isStorageKey, STORAGE_KEY, type CaptureStorage, type StoredFile } from '../core/storage.js';
