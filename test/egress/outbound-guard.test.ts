import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createOutboundGuard } from '../../src/egress/index.js';
import type { Resolver } from '../../src/egress/resolver.js';

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
