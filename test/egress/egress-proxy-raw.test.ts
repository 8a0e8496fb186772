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

  describe('SOCKS5 on the same port', () => {
    const greeting = [5, 1, 0];
    const port16 = (port: number): number[] => [port >> 8, port & 0xff];
    const byName = (name: string, port: number): number[] => [5, 1, 0, 3, name.length, ...Buffer.from(name), ...port16(port)];

    /** Sends `bytes` (after a pause when a second part is given) and returns everything read before the proxy closed. */
    function socks(server: string, ...parts: number[][]): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const socket = connect(Number(new URL(server).port), '127.0.0.1', () => {
          socket.write(Buffer.from(parts[0]!));
          if (parts[1]) setTimeout(() => socket.write(Buffer.from(parts[1]!)), 20);
        });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.on('error', reject);
      });
    }
    /** The reply code after the method choice [5, 0]. */
    const replyCode = (answer: Buffer): number | undefined => (answer.subarray(0, 2).equals(Buffer.from([5, 0])) ? answer[3] : undefined);

    it('refuses private targets by name and as IPv4 or IPv6 literals, and records why', async () => {
      const s = await proxy.openSession();
      try {
        expect(s.server).toMatch(/^socks5:\/\/127\.0\.0\.1:\d+$/);
        const ipv6Loopback = [...Array<number>(15).fill(0), 1];
        expect(replyCode(await socks(s.server, greeting, byName('canary.test', canary.port)))).toBe(0x02);
        expect(replyCode(await socks(s.server, greeting, [5, 1, 0, 1, 127, 0, 0, 1, ...port16(canary.port)]))).toBe(0x02);
        expect(replyCode(await socks(s.server, greeting, [5, 1, 0, 4, ...ipv6Loopback, ...port16(canary.port)]))).toBe(0x02);
        expect(replyCode(await socks(s.server, greeting, byName('::1', canary.port)))).toBe(0x02); // Chromium's way of sending a literal
        expect(replyCode(await socks(s.server, greeting, byName('nx.test', 80)))).toBe(0x04);
        for (const url of [`http://canary.test:${canary.port}/`, `http://127.0.0.1:${canary.port}/`, `http://[::1]:${canary.port}/`]) expect(s.failureFor(url), url).toBe('refused');
        expect(s.failureFor('http://nx.test/')).toBe('dns');
        expect(s.refusedUrls()).toEqual([`canary.test:${canary.port}`, `127.0.0.1:${canary.port}`, `[::1]:${canary.port}`, `[::1]:${canary.port}`]);
        expect(canaryHits()).toBe(0);
      } finally {
        await s.close();
      }
    });

    it('carries an allowed name, greeting and request in one write, and answers a closed port as refused', async () => {
      const gone = await listen('127.0.0.1', 0, () => {});
      await closeListener(gone);
      const local = createEgressProxy({ ...policy, isAllowed: (a, p) => a === '127.0.0.1' && (p === fixture.port || p === gone.port) });
      const s = await local.openSession();
      try {
        const answer = await socks(s.server, [...greeting, ...byName('public.test', fixture.port), ...Buffer.from(`GET /data HTTP/1.1\r\nHost: public.test\r\nConnection: close\r\n\r\n`)]);
        // Bytes after the request, before the reply: not SOCKS, refused as a general failure.
        expect(replyCode(answer)).toBe(0x01);
        const tunnel = connect(Number(new URL(s.server).port), '127.0.0.1', () => tunnel.write(Buffer.from([...greeting, ...byName('public.test', fixture.port)])));
        let received = Buffer.alloc(0);
        tunnel.on('data', (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          if (received.length === 12) tunnel.write(`GET /data HTTP/1.1\r\nHost: public.test\r\nConnection: close\r\n\r\n`);
        });
        await new Promise((resolve) => tunnel.on('close', resolve));
        // Succeeded, bound to the local end of the upstream connection (IPv4, a real port).
        expect([...received.subarray(0, 8)]).toEqual([5, 0, 5, 0, 0, 1, 127, 0]);
        expect(received.readUInt16BE(10)).toBeGreaterThan(0);
        expect(received.subarray(12).toString()).toMatch(/^HTTP\/1\.1 200 OK[^]*\{"ok":true\}/);
        expect(replyCode(await socks(s.server, greeting, byName('public.test', gone.port)))).toBe(0x05);
        expect(s.failureFor(`http://public.test:${gone.port}/`)).toBe('unreachable');
      } finally {
        await local.close();
      }
    });

    it('answers what it does not speak, and closes a handshake that stalls', async () => {
      const local = createEgressProxy(policy, { connectTimeoutMs: 100 });
      const s = await local.openSession();
      try {
        expect((await socks(s.server, [5, 1, 2])).equals(Buffer.from([5, 0xff]))).toBe(true); // no acceptable method
        expect(await socks(s.server, [5, 0])).toHaveLength(0); // a greeting offering nothing
        expect(replyCode(await socks(s.server, greeting, [5, 2, 0, 1, 127, 0, 0, 1, 0, 80]))).toBe(0x07); // BIND
        expect(replyCode(await socks(s.server, greeting, [5, 3, 0, 1, 127, 0, 0, 1, 0, 80]))).toBe(0x07); // UDP ASSOCIATE
        expect(replyCode(await socks(s.server, greeting, [5, 1, 0, 9, 127, 0, 0, 1, 0, 80]))).toBe(0x08);
        expect(replyCode(await socks(s.server, greeting, [4, 1, 0, 1, 127, 0, 0, 1, 0, 80]))).toBe(0x01); // a request of another version
        expect(replyCode(await socks(s.server, greeting, byName('a/b', 80)))).toBe(0x01);
        // Stalled: a partial greeting, a partial request, nothing at all. Each is closed by the proxy.
        const silent = connect(Number(new URL(s.server).port), '127.0.0.1');
        const [partialGreeting, partialRequest] = await Promise.all([socks(s.server, [5]), socks(s.server, greeting, [5, 1, 0, 3, 20, 97]), new Promise((resolve) => silent.on('close', resolve))]);
        expect(partialGreeting).toHaveLength(0);
        expect(partialRequest.equals(Buffer.from([5, 0]))).toBe(true);
        expect(canaryHits()).toBe(0);
      } finally {
        await local.close();
      }
    });
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
