import type { CDPSession } from 'playwright-core';
import { throwIfAborted } from '../../src/core/deadline.js';

/**
 * Reads a protocol stream (a printed PDF, a fetched resource) in chunks: one message holding a
 * large body in base64 would need several times its size in memory at once.
 */
export async function readCdpStream(cdp: CDPSession, handle: string, signal: AbortSignal, maxBytes = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      throwIfAborted(signal);
      const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
      const bytes = Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'binary');
      size += bytes.length;
      if (size > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
      chunks.push(bytes);
      if (chunk.eof) return Buffer.concat(chunks);
    }
  } finally {
    await cdp.send('IO.close', { handle }).catch(() => undefined);
  }
}
