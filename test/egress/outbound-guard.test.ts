import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOutboundGuard } from '../../src/egress/index.js';
import type { Resolver } from '../../src/egress/resolver.js';
import { putToPresignedUrl } from '../../src/egress/presigned-upload.js';

/** Names answering with fixed addresses; `rebind.example` is public at the first lookup and loopback after. */
function resolver(): Resolver {
  let rebinds = 0;
  return async (hostname) => {
    if (hostname === 'public.example') return ['93.184.215.14'];
    if (hostname === 'private.example') return ['10.0.0.7'];
    if (hostname === 'rebind.example') return rebinds++ === 0 ? ['93.184.215.14'] : ['127.0.0.1'];
    throw new Error('ENOTFOUND');
  };
}

describe('outbound guard (webhooks)', () => {
  it('judges a URL like a capture target, naming the parameter', async () => {
    const guard = createOutboundGuard({ allowPrivateNetworks: false, resolver: resolver() });
    await expect(guard.check('https://public.example/hook', 'webhook_url')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('http://private.example/hook', 'webhook_url')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(guard.check('http://127.0.0.1:9/hook', 'webhook_url')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(guard.check('ftp://public.example/', 'webhook_url')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(guard.check('not a url', 'webhook_url')).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'webhook_url' } });
  });

  it('dials only addresses it checked when connecting: a name re-pointed to loopback gets nowhere', async () => {
    let reached = false;
    const server = createServer((_req, res) => {
      reached = true;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const guard = createOutboundGuard({ allowPrivateNetworks: false, resolver: resolver() });
      const url = await guard.check(`http://rebind.example:${port}/hook`, 'webhook_url');
      const failure = await new Promise<NodeJS.ErrnoException>((resolve) => {
        request(url, { lookup: guard.lookupFor(url) }, () => resolve(new Error('answered'))).on('error', resolve).end();
      });
      expect(failure.code).toBe('EACCES');
      expect(reached).toBe(false);
      const open = createOutboundGuard({ allowPrivateNetworks: true, resolver: resolver() });
      const local = new URL(`http://127.0.0.1:${port}/hook`);
      const status = await new Promise<number>((resolve, reject) => {
        request(local, { lookup: open.lookupFor(local) }, (res) => resolve(res.statusCode ?? 0)).on('error', reject).end();
      });
      expect(status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('uploads to a presigned URL', () => {
  /** A storage answering each PUT with the next status of `statuses` (then 200), keeping what came. */
  async function storage(statuses: number[]): Promise<{ url: string; puts: { type?: string; length?: string; body: Buffer }[]; close(): Promise<void> }> {
    const puts: { type?: string; length?: string; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        puts.push({ type: req.headers['content-type'], length: req.headers['content-length'], body: Buffer.concat(parts) });
        res.writeHead(statuses.shift() ?? 200).end('<Error/>');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/bucket/key?X-Amz-Signature=abc`, puts, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const file = (bytes: Buffer) => ({ stream: () => Readable.from([bytes]), size: bytes.length, contentType: 'image/png' });

  it('PUTs the bytes with their type and length, tries again after a 503, and fails at once on a 403', async () => {
    const target = await storage([503, 200, 403]);
    const port = Number(new URL(target.url).port);
    // Loopback is private: only this port is allowed, as CAPTURE_ALLOW_ADDRESSES would.
    const guard = createOutboundGuard({ allowPrivateNetworks: false, allowAddress: (address, to) => address === '127.0.0.1' && to === port });
    try {
      const bytes = Buffer.from('not really a png, but bytes');
      const url = await guard.check(target.url, 'upload_url');
      await expect(putToPresignedUrl(url, file(bytes), guard, new AbortController().signal, { backoffMs: 10 })).resolves.toEqual({ status: 200, attempts: 2 });
      expect(target.puts).toHaveLength(2);
      expect(target.puts[1]).toEqual({ type: 'image/png', length: String(bytes.length), body: bytes });
      await expect(putToPresignedUrl(url, file(bytes), guard, new AbortController().signal, { backoffMs: 10 })).rejects.toMatchObject({
        code: 'UPLOAD_FAILED',
        details: { param: 'upload_url', status: 403, attempts: 1 },
      });
      expect(target.puts).toHaveLength(3);
      await expect(guard.check(`http://127.0.0.1:${port + 1}/bucket/key`, 'upload_url')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    } finally {
      await target.close();
    }
  });
});
