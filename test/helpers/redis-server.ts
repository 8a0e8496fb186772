import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { closedPort } from './ports.js';

/** A real redis-server on a free loopback port, without persistence, stopped by `stop()`. */
export interface TestRedis {
  url: string;
  client(): Redis;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await closedPort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const clients: Redis[] = [];
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const ready = await probe.connect().then(() => true, () => false);
    probe.disconnect();
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    client: () => {
      const client = new Redis(url);
      clients.push(client);
      return client;
    },
    stop: async () => {
      for (const client of clients) client.disconnect();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
