import { hash, randomBytes } from 'node:crypto';

/**
 * Where cached captures are stored. Their files are not captures' files: they outlive the request
 * that made them (days), and a render link's public answer names the capture, so they are served
 * to their owner's key only, under a name nobody else can work out, never to anyone holding a path.
 */
export const CACHE_FOLDER = 'cache';

/** A not secret, fixed-length tag of the owner, so the files route knows whose file a key is. */
const ownerTag = (accountId: string): string => hash('sha256', accountId, 'base64url').slice(0, 12);

/** A new file key of `accountId`'s: its tag, then 128 random bits. */
export function cacheFileKey(accountId: string, extension: string): string {
  return `${CACHE_FOLDER}/${ownerTag(accountId)}_${randomBytes(16).toString('base64url')}.${extension}`;
}

export function isCacheFileOf(key: string, accountId: string): boolean {
  return key.startsWith(`${CACHE_FOLDER}/${ownerTag(accountId)}_`);
}
