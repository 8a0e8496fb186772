import { createServer, request, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

/** A proxy of the test's own, counting what passed through it and refusing wrong credentials. */
export interface CountingProxy {
  /** `http://user:pass@127.0.0.1:port` or `socks5://...` */
  url: string;
  /** What it carried: absolute URLs of plain http, `host:port` of tunnels. */
  carried: string[];
  /** Requests it refused for their credentials. */
  refused: number;
  close(): Promise<void>;
}

const listen = async (server: Server | TcpServer): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/** Closes a server once the connections it still holds are cut. */
const closer = (server: Server | TcpServer, sockets: Set<Socket>) => (): Promise<void> =>
  new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  });

/** An HTTP forward proxy with Basic credentials: absolute-form requests and CONNECT tunnels. */
export async function startHttpProxy(user: string, password: string): Promise<CountingProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const sockets = new Set<Socket>();
  const proxy: Omit<CountingProxy, 'url' | 'close'> = { carried: [], refused: 0 };
  const server = createServer((req, res) => {
    if (req.headers['proxy-authorization'] !== expected) {
      proxy.refused++;
      return void res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"' }).end();
    }
    proxy.carried.push(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = request(req.url ?? '', { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    if (req.headers['proxy-authorization'] !== expected) {
      proxy.refused++;
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    }
    proxy.carried.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listen(server);
  return Object.assign(proxy, { url: `http://${user}:${password}@127.0.0.1:${port}`, close: closer(server, sockets) });
}

/** A SOCKS5 proxy (RFC 1928) with username and password (RFC 1929), CONNECT only. */
export async function startSocksProxy(user: string, password: string): Promise<CountingProxy> {
  const proxy: Omit<CountingProxy, 'url' | 'close'> = { carried: [], refused: 0 };
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (stage === 'greeting' && buffered.length >= 2 && buffered.length >= 2 + buffered[1]!) {
        buffered = buffered.subarray(2 + buffered[1]!);
        stage = 'auth';
        client.write(Buffer.from([5, 2]));
      }
      if (stage === 'auth' && buffered.length >= 2) {
        const userLength = buffered[1]!;
        const passwordLength = buffered[2 + userLength];
        if (passwordLength === undefined || buffered.length < 3 + userLength + passwordLength) return;
        const given = [buffered.subarray(2, 2 + userLength).toString(), buffered.subarray(3 + userLength, 3 + userLength + passwordLength).toString()];
        buffered = buffered.subarray(3 + userLength + passwordLength);
        if (given[0] !== user || given[1] !== password) {
          proxy.refused++;
          return void client.end(Buffer.from([1, 1]));
        }
        client.write(Buffer.from([1, 0]));
        stage = 'request';
      }
      if (stage === 'request' && buffered.length >= 5) {
        const type = buffered[3];
        const hostLength = type === 3 ? 1 + buffered[4]! : type === 1 ? 4 : 16;
        if (buffered.length < 4 + hostLength + 2) return;
        const host = type === 3 ? buffered.subarray(5, 4 + hostLength).toString() : type === 1 ? [...buffered.subarray(4, 8)].join('.') : 'ipv6';
        const port = buffered.readUInt16BE(4 + hostLength);
        client.off('data', onData);
        proxy.carried.push(`${host}:${port}`);
        const upstream = connect(port, host, () => {
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      }
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  return Object.assign(proxy, { url: `socks5://${user}:${password}@127.0.0.1:${port}`, close: closer(server, sockets) });
}
