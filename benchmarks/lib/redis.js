// A throw-away redis-server on 127.0.0.1 and a free port: no persistence, ended by pid.
//
//   const redis = await startRedis(); redis.url; await redis.stop();   // stopAllRedis() on cleanup

import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

const running = new Set();

function ping(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let data = '';
    s.setTimeout(1000, () => s.destroy());
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      data += d;
      if (data.includes('\r\n')) s.end();
    });
    s.on('close', () => resolve(data.startsWith('+PONG')));
    s.on('error', () => resolve(false));
  });
}

async function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}

/** Starts redis-server and waits (at most 10 s) until it answers PING; stops it if it fails. */
export async function startRedis() {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--dir', os.tmpdir(), '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const handle = { port, url: `redis://127.0.0.1:${port}`, pid: proc.pid, stop: () => running.delete(handle) && stop(proc) };
  running.add(handle);
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const failed = new Promise((_, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${stderr.trim()}`)));
  });
  failed.catch(() => undefined);
  try {
    const t0 = Date.now();
    while (Date.now() - t0 < 10_000) {
      if (await Promise.race([ping(port), failed])) return handle;
      await sleep(100);
    }
    throw new Error('redis-server did not answer PING within 10 s');
  } catch (error) {
    await handle.stop();
    throw error;
  }
}

/** Stops every redis-server started here and not stopped yet. */
export const stopAllRedis = () => Promise.all([...running].map((r) => r.stop()));
