import { randomBytes } from 'node:crypto';

/**
 * Where the bytes of idempotent answers too large to keep in the idempotency store are stored, for
 * replay: the store keeps the file's key. Never served by the files route (see `mayRead`).
 */
export const REPLAY_FOLDER = 'replays';

export function replayFileKey(): string {
  return `${REPLAY_FOLDER}/${randomBytes(16).toString('base64url')}.bin`;
}
