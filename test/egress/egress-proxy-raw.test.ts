import { request } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createEgressProxy } from '../../src/egress/index.js';
import { namedProxies, resolveOutboundProxy } from '../../src/egress/outbound-proxy.js';
import { startHttpProxy } from '../helpers/counting-proxy.js';
import { canary, canaryHits, closeListener, fixture, listen, policy, proxy } from './proxy-world.js';

/** The egress proxy spoken to directly, without a browser: malformed, hostile and failing peers. */
describe('egress proxy without a browser', () => {
  const getVia = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`;
  const connectTo = (authority: string): string => `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

  /** Sends one raw request to the proxy and returns what came back before it closed. */
  function raw(server: string, text: string): Promise<string> {
    const { port } = new URL(server);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 2_000).unref();
    });
  }

  it('answers malformed and refused CONNECTs and closes them', async () => {
    const s = await proxy.openSession();
    try {
      const refused = await raw(s.server, connectTo(`canary.test:${canary.port}`));
      expect(refused).toMatch(/^HTTP\/1\.1 403 [^]*URL_NOT_ALLOWED$/);
      for (const authority of ['nonsense', 'user@public.test:1', '127.0.0.1:0', '127.0.0.1:65536', 'a/b:80']) {
        expect(await raw(s.server, connectTo(authority)), authority).toMatch(/^HTTP\/1\.1 400/);
      }
      expect(await raw(s.server, getVia('/origin-form'))).toMatch(/^HTTP\/1\.1 400/);
      expect(await raw(s.server, getVia('ftp://public.test/'))).toMatch(/^HTTP\/1\.1 403/);
      expect(await raw(s.server, 'NOT HTTP AT ALL\r\n\r\n')).not.toMatch(/^HTTP\/1\.1 200/);
      expect(canaryHits()).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('carries an allowed tunnel and tears it down on close, leaving no sockets behind', async () => {
    const s = await proxy.openSession();
    const before = fixture.connections;
    const upstreamSide = new Promise<Socket>((resolve) => fixture.server.once('connection', resolve));
    const tunnel = connect(Number(new URL(s.server).port), '127.0.0.1');
    tunnel.setEncoding('utf8');
    let received = '';
    tunnel.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => tunnel.on('close', () => resolve()));
    tunnel.on('error', () => {});
    tunnel.write(`CONNECT public.test:${fixture.port} HTTP/1.1\r\nHost: public.test\r\n\r\n`);
    tunnel.write(`GET /data HTTP/1.1\r\nHost: public.test:${fixture.port}\r\n\r\n`);
    await expect
      .poll(() => received)
      .toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n[^]*\{"ok":true\}/);
    expect(fixture.connections).toBe(before + 1);
    const upstream = await upstreamSide;
    const upstreamClosed = new Promise<void>((resolve) => upstream.once('close', () => resolve()));
    await s.close();
    await closed;
    await upstreamClosed;
  });

  it('survives clients and upstreams that reset mid-exchange', async () => {
    const slow = await listen('127.0.0.1', 0, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === slow.port });
    const s = await local.openSession();
    const proxyPort = Number(new URL(s.server).port);
    try {
      // Upstream dies after the headers: the client sees a truncated body, the proxy lives on.
      const truncated = await new Promise<string>((resolve) => {
        const req = request({ host: '127.0.0.1', port: proxyPort, path: `http://public.test:${slow.port}/` }, (res) => {
          res.on('data', () => {});
          res.on('error', () => resolve('aborted'));
          res.on('close', () => resolve(res.complete ? 'complete' : 'aborted'));
        });
        req.on('error', () => resolve('aborted'));
        req.end();
      });
      expect(truncated).toBe('aborted');
      // Client resets right after sending a request and right after a CONNECT.
      for (const text of [getVia(`http://public.test:${slow.port}/`), connectTo(`public.test:${slow.port}`)]) {
        const socket = connect(proxyPort, '127.0.0.1', () => {
          socket.write(text);
          setImmediate(() => socket.resetAndDestroy());
        });
        socket.on('error', () => {});
        await new Promise((resolve) => socket.on('close', resolve));
      }
      expect(await raw(s.server, getVia(`http://public.test:${slow.port}/`))).toContain('partial');
    } finally {
      await s.close();
      await local.close();
      await closeListener(slow);
    }
  });

  it('resends a bodiless request when a kept-alive upstream connection was closed under it', async () => {
    // Answers the first request of each connection, then drops the connection at the next one:
    // the race a keep-alive pool meets when a server times out an idle connection.
    const flaky = await listen('127.0.0.1', 0, (req, res) => {
      const socket = req.socket as Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return void socket.destroy();
      res.end(`ok ${req.url}`);
    });
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === flaky.port });
    const s = await local.openSession();
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const url = new URL(s.server);
        request({ host: url.hostname, port: url.port, path: `http://public.test:${flaky.port}${path}`, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => (body += c));
          res.on('end', () => resolve(`${res.statusCode} ${body}`));
        }).on('error', reject).end();
      });
    try {
      expect(await get('/1')).toBe('200 ok /1');
      expect(await get('/2')).toBe('200 ok /2');
      expect(flaky.connections).toBe(2);
    } finally {
      agent.destroy();
      await local.close();
      await closeListener(flaky);
    }
  });

  it('survives upstreams that answer garbage', async () => {
    const garbage = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\nhi'));
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const port = (garbage.address() as AddressInfo).port;
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === port });
    const s = await local.openSession();
    try {
      expect(await raw(s.server, getVia(`http://public.test:${port}/`))).toMatch(/^HTTP\/1\.1 502/);
      // And the session still serves.
      expect(await raw(s.server, connectTo(`canary.test:${canary.port}`))).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await local.close();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it('reports an unreachable allowed upstream as 502', async () => {
    const gone = await listen('127.0.0.1', 0, () => {});
    const port = gone.port;
    await closeListener(gone);
    const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && p === port });
    const s = await local.openSession();
    try {
      expect(await raw(s.server, getVia(`http://public.test:${port}/`))).toMatch(/^HTTP\/1\.1 502/);
      expect(await raw(s.server, connectTo(`public.test:${port}`))).toMatch(/^HTTP\/1\.1 502/);
      expect(s.failureFor(`http://public.test:${port}/`)).toBe('unreachable');
      expect(s.refusedUrls()).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('sends every connection through the capture\'s own proxy, after its own checks', async () => {
    const upstream = await startHttpProxy('alice', 'pw');
    const target = `127.0.0.1:${fixture.port}`;
    const trusted = await proxy.openSession({ url: new URL(upstream.url), trusted: true });
    // The same proxy given by a caller: its loopback address does not pass the guard.
    const untrusted = await proxy.openSession({ url: new URL(upstream.url), trusted: false });
    try {
      expect(await raw(trusted.server, `${connectTo(target)}GET / HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 Connection Established[^]*fixture ok/);
      expect(await raw(trusted.server, getVia(`http://${target}/data`))).toMatch(/^HTTP\/1\.1 200[^]*\{"ok":true\}/);
      expect(await raw(trusted.server, connectTo(`canary.test:${canary.port}`))).toMatch(/^HTTP\/1\.1 403/);
      expect(upstream.carried).toEqual([target, `http://${target}/data`]);
      expect(await raw(untrusted.server, connectTo(target))).toMatch(/^HTTP\/1\.1 502[^]*UPSTREAM_UNREACHABLE$/);
      expect(upstream.carried).toHaveLength(2);
      expect(canaryHits()).toBe(0);
    } finally {
      await Promise.all([trusted.close(), untrusted.close(), upstream.close()]);
    }
  });

  // Issue 47, item 8: a name the proxy resolved itself could point elsewhere for it (rebinding, split horizon).
  it('hands a named proxy the address it checked, never the name, for tunnels and plain http', async () => {
    const upstream = await startHttpProxy('alice', 'pw');
    const session = await proxy.openSession({ url: new URL(upstream.url), trusted: true });
    try {
      const name = `public.test:${fixture.port}`;
      expect(await raw(session.server, `${connectTo(name)}GET / HTTP/1.1\r\nHost: ${name}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 Connection Established[^]*fixture ok/);
      expect(await raw(session.server, getVia(`http://${name}/data`))).toMatch(/^HTTP\/1\.1 200[^]*\{"ok":true\}/);
      expect(upstream.carried).toEqual([`127.0.0.1:${fixture.port}`, `http://127.0.0.1:${fixture.port}/data`]);
      expect(upstream.carried.join(' ')).not.toContain('public.test');
    } finally {
      await Promise.all([session.close(), upstream.close()]);
    }
  });

  it('checks a caller\'s proxy like a target, and takes the operator\'s by name', async () => {
    const named = namedProxies({ office: 'socks5h://u:p@127.0.0.1' });
    await expect(resolveOutboundProxy('office', named, policy)).resolves.toMatchObject({ trusted: true, url: new URL('socks5://u:p@127.0.0.1:1080') });
    await expect(resolveOutboundProxy('http://u:p@canary.test:3128', named, policy)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED', details: { param: 'proxy' } });
    await expect(resolveOutboundProxy('http://u:p@canary.test:3128', named, policy)).rejects.not.toThrow(/u:p/);
    await expect(resolveOutboundProxy('home', named, policy)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringMatching(/named proxies: office/) });
    await expect(resolveOutboundProxy('http://h:1/path', named, policy)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(() => namedProxies({ 'bad name': 'http://h:1' })).toThrow(/letters, digits/);
  });
});
