// Remembers every descendant seen below our child processes (Chromium and its helpers, ffmpeg...)
// by identity (pid, comm and start time), so that cleanup can end exactly those processes, e.g. a
// browser left behind by a child process that crashed, and never a process that reused a pid.

import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_PROC, processTable, treePids } from './process-tree.js';


export class Leftovers {
  constructor() {
    this.seen = new Map(); // pid -> { pid, comm, start }
  }

  /** Remembers the descendants (not the roots themselves) of the trees rooted at `roots`. */
  remember(roots, table = processTable()) {
    for (const root of roots) this.addTree(root, treePids(root, table), table);
  }

  /** Remembers the descendants in `pids`, the tree of `root` listed from `table`. */
  addTree(root, pids, table) {
    for (const pid of pids) {
      const p = table.get(pid);
      if (pid !== root) this.seen.set(pid, { pid, comm: p.comm, start: p.start });
    }
  }

  /** Pids of the remembered processes that are still the same live (non-zombie) process. */
  stillRunning() {
    if (!HAS_PROC) return [];
    const table = processTable();
    const out = [];
    for (const [pid, { comm, start }] of this.seen) {
      const now = table.get(pid);
      if (now && now.comm === comm && now.start === start && now.state !== 'Z') out.push(pid);
    }
    return out;
  }

  /**
   * Gives the remembered processes `waitMs` to exit on their own (browsers exit shortly after
   * their parent), then signals those still running. Returns the pids it signalled.
   */
  async end({ waitMs = 5000, pollMs = 100, signal = 'SIGKILL' } = {}) {
    for (let t = 0; t < waitMs && this.stillRunning().length; t += pollMs) await sleep(pollMs);
    const killed = [];
    for (const pid of this.stillRunning()) {
      try {
        process.kill(pid, signal);
        killed.push(pid);
      } catch {
        // already gone
      }
    }
    return killed;
  }
}
