import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { CDPSession } from 'playwright-core';
import { throwIfAborted } from '../../src/core/deadline.js';

/** Bytes asked of each `IO.read`: a large document is read in many of these, never held whole in one message. */
const CHUNK_BYTES = 1 << 20;

/**
 * Writes a protocol stream (a printed PDF) to `file` as its chunks come, so that a document of
 * hundreds of MB never sits in this process's memory, nor in one base64 message. `onChunk` sees
 * each chunk and may throw to stop (a limit passed). The handle is always closed; on any failure
 * (abort, deadline, limit) the file is removed. Resolves the bytes written.
 */
export async function writeCdpStream(cdp: CDPSession, handle: string, file: string, signal: AbortSignal, onChunk: (chunk: Buffer) => void): Promise<number> {
  const out = createWriteStream(file, { flags: 'wx' });
  let size = 0;
  try {
    for (;;) {
      throwIfAborted(signal);
      const chunk = await cdp.send('IO.read', { handle, size: CHUNK_BYTES });
      const bytes = Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'binary');
      size += bytes.length;
      onChunk(bytes);
      if (!out.write(bytes)) await once(out, 'drain', { signal });
      if (chunk.eof) break;
    }
    out.end();
    await once(out, 'finish', { signal });
    return size;
  } catch (error) {
    // Removed once closed: a stream destroyed before it opened still creates the file.
    out.destroy();
    if (!out.closed) await once(out, 'close');
    await rm(file, { force: true });
    throw error;
  } finally {
    await cdp.send('IO.close', { handle }).catch(() => undefined);
  }
}
