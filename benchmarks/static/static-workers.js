// The static benchmark's worker processes (worker.js), one per unit, seen from static.js: each is
// sampled for memory while it works, and left to go quiet after each measurement.

import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildChannel } from '../lib/ipc.js';
import { TreeSampler } from '../lib/tree-sampler.js';
import { waitQuiet } from '../lib/wait-quiet.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export class WorkerPool {
  constructor({ verbose = false, log = console.error } = {}) {
    this.verbose = verbose;
    this.log = log;
    this.sampler = new TreeSampler({ intervalMs: 100 });
    this.workers = new Map(); // unit -> Worker, once set up
    this.quietMs = 0; // time spent waiting for quiet between measurements
  }

  /** Forks the worker of `unit` for `contenders` and sets it up; throws (worker stopped) if that fails. */
  async start(unit, contenders) {
    const w = new Worker(this, unit, contenders);
    try {
      const { info } = await w.measured('setup', {}, 120000);
      this.workers.set(unit, w);
      return { worker: w, info };
    } catch (err) {
      await w.stop();
      err.tail = w.tail;
      throw err;
    }
  }

  /** Stops every worker; browsers left behind 5 s later are killed. Returns the pids killed. */
  async shutdown() {
    if (this.stopping) return [];
    this.stopping = true;
    this.sampler.stop();
    await Promise.all([...this.workers.values()].map((w) => w.stop().catch(() => {})));
    return this.sampler.leftovers.end({ waitMs: 5000, pollMs: 100 });
  }
}

class Worker {
  constructor(pool, unit, contenders) {
    this.pool = pool;
    this.unit = unit;
    this.contenders = contenders;
    this.tail = [];
    this.child = fork(path.join(HERE, 'worker.js'), [unit, contenders.join(',')], {
      // benchmarks/, where the peers' puppeteer finds its configuration (.puppeteerrc.cjs).
      cwd: path.resolve(HERE, '..'),
      // The environment as it is: the engine finds its own browser unless CAPTURE_CHROMIUM_PATH says.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.pid = this.child.pid;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        for (const line of chunk.split('\n')) {
          if (!line.trim()) continue;
          if (pool.verbose) pool.log(`  [${unit}] ${line}`);
          this.tail.push(line);
          if (this.tail.length > 30) this.tail.shift();
        }
      });
    }
    this.channel = new ChildChannel(this.child, { name: 'worker', detail: () => (this.tail.length ? `: ${this.tail.at(-1)}` : '') });
  }

  /** Run `op` with this worker's process tree sampled for memory, then wait until it is quiet. */
  async measured(op, body, timeoutMs = 120000) {
    const { sampler } = this.pool;
    sampler.active.add(this.pid);
    sampler.sample([this.pid]);
    try {
      return await this.channel.call(op, body, timeoutMs);
    } finally {
      sampler.sample([this.pid]);
      this.pool.quietMs += await waitQuiet(this.pid);
      sampler.active.delete(this.pid);
    }
  }

  async stop() {
    if (this.channel.dead) return;
    this.pool.sampler.sample([this.pid]); // remember its current children for the leftover check
    await this.channel.close({ timeoutMs: 20000, graceMs: 5000 });
  }
}
