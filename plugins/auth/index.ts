export { createMemoryKeyStore, hashKey, MAX_KEY_LENGTH, type ApiKeyRecord, type KeyStore, type MemoryKeyStore } from './key-store.js';
