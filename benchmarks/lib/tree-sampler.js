// Peak RSS of process trees: samples the summed VmRSS of the tree of every "active" root every
// `intervalMs`, keeps the peak per root (for the whole run and since resetWindow()), and
// remembers every descendant it saw for the cleanup (see leftovers.js).

import { Leftovers } from './leftovers.js';
import { rssBytes, sumOver } from './process-memory.js';
import { HAS_PROC, processTable, treePids } from './process-tree.js';

export class TreeSampler {
  constructor({ intervalMs = 100 } = {}) {
    this.intervalMs = intervalMs;
    this.active = new Set();
    this.peak = new Map(); // root -> bytes, whole run
    this.windowPeak = new Map(); // root -> bytes, since resetWindow()
    this.leftovers = new Leftovers();
    this.timer = null;
  }

  start() {
    if (!HAS_PROC || this.timer) return;
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Take one sample now, of the given roots (default: the active ones). */
  sample(roots = [...this.active]) {
    if (!HAS_PROC || !roots.length) return;
    const table = processTable();
    for (const root of roots) {
      const pids = treePids(root, table);
      const bytes = sumOver(pids, rssBytes);
      this.leftovers.addTree(root, pids, table);
      this.peak.set(root, Math.max(this.peak.get(root) || 0, bytes));
      this.windowPeak.set(root, Math.max(this.windowPeak.get(root) || 0, bytes));
    }
  }

  resetWindow(root) {
    this.windowPeak.delete(root);
  }
}
