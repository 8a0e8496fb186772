// The load benchmark's server processes (load-server.js), seen from load.js: each is forked, mounts
// an engine's HTTP service under one adapter and answers over IPC; every descendant they start (Chromium) is
// remembered so that the cleanup can end what a crashed server left behind.

import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildChannel } from '../lib/ipc.js';
import { Leftovers } from '../lib/leftovers.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const live = new Set(); // handles of running servers
const leftovers = new Leftovers();

const remember = () => live.size && leftovers.remember([...live].map((s) => s.pid));
setInterval(remember, 500).unref();

/**
 * Forks load-server.js and mounts an engine's HTTP service under `adapter` (express, fastify,
 * koa, node, floor...), limits in Redis at `redisUrl` if given. `options` mixes engine options
 * and createCaptureHttp's (apiKeys, tiers...): load-server.js hands each to its own. Resolves with
 * { pid, port, memory(), close() }.
 */
export async function startServer(adapter, options, { redisUrl } = {}) {
  const child = fork(path.join(HERE, 'load-server.js'), [], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const channel = new ChildChannel(child, { name: 'server process' });
  const handle = {
    adapter,
    pid: child.pid,
    port: 0,
    async close() {
      live.delete(handle);
      await channel.close({ timeoutMs: 20_000, graceMs: 5000 });
    },
    /** The server's Node memory (after a full GC) and the engine's stats. */
    memory: () => channel.call('mem', {}, 30_000),
  };
  live.add(handle);
  try {
    const { port } = await channel.call('start', { adapter, options, redisUrl }, 90_000);
    handle.port = port;
    remember();
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Closes every server still running, then ends what they left behind. Returns the pids killed. */
export async function closeAllServers() {
  remember();
  await Promise.all([...live].map((s) => s.close()));
  return leftovers.end({ waitMs: 5000, pollMs: 250 });
}
