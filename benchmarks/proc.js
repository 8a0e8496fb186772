// Process-tree memory sampling and cleanup, from /proc (Linux only; elsewhere RSS reads as null).
//
// The RSS of a tree is the sum of VmRSS of the root and every descendant. Chromium's processes
// share many pages, so the sum over-counts shared memory; it is the same bias for every
// contender, and it is what `ps`/`top` users add up.

import fs from 'node:fs';

const HAS_PROC = fs.existsSync('/proc/self/stat');

/** Map of pid -> { ppid, comm, start } for every process visible in /proc. */
export function processTable() {
  const table = new Map();
  if (!HAS_PROC) return table;
  for (const name of fs.readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // fields[0] = state, [1] = ppid, ... [19] = starttime (field 22 of stat)
    table.set(Number(name), {
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]), // utime + stime (clock ticks)
      comm: stat.slice(open + 1, close),
      start: fields[19],
      state: fields[0],
    });
  }
  return table;
}

/** Pids of root and all its descendants (root first). */
export function treePids(root, table = processTable()) {
  const children = new Map();
  for (const [pid, { ppid }] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const out = [];
  const stack = table.has(root) ? [root] : [];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    for (const c of children.get(pid) || []) stack.push(c);
  }
  return out;
}

function vmRssKb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) : 0; // zombies and kernel threads have no VmRSS
  } catch {
    return 0;
  }
}

/** CPU time (clock ticks, usually 1/100 s) used so far by the live processes of a tree. */
export function treeTicks(root) {
  const table = processTable();
  let ticks = 0;
  for (const pid of treePids(root, table)) ticks += table.get(pid).ticks;
  return ticks;
}

/**
 * Wait until the tree of `root` is quiet (it used at most `maxTicks` of CPU over `windowMs`),
 * or `timeoutMs` passed: background work left by one contender (closing a browser, refilling
 * warm contexts) must not run during the next contender's measurement.
 */
export async function waitQuiet(root, { windowMs = 150, maxTicks = 2, timeoutMs = 3000 } = {}) {
  if (!HAS_PROC) return 0;
  const t0 = Date.now();
  let before = treeTicks(root);
  while (Date.now() - t0 < timeoutMs) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = treeTicks(root);
    if (now - before <= maxTicks) break;
    before = now;
  }
  return Date.now() - t0;
}

/**
 * Sum of RSS (bytes) of the trees rooted at `roots`; also reports every pid seen with its
 * identity (comm + start time) so that cleanup can later end exactly these processes.
 */
export function sampleTrees(roots) {
  if (!HAS_PROC) return { rss: null, seen: [] };
  const table = processTable();
  const result = new Map();
  const seen = [];
  for (const root of roots) {
    let kb = 0;
    for (const pid of treePids(root, table)) {
      kb += vmRssKb(pid);
      const p = table.get(pid);
      if (pid !== root) seen.push({ pid, comm: p.comm, start: p.start });
    }
    result.set(root, kb * 1024);
  }
  return { rss: result, seen };
}

/**
 * Samples the RSS of the trees of the currently "active" roots every `intervalMs`, keeping the
 * peak per root, and remembers every descendant it ever saw.
 */
export class TreeSampler {
  constructor({ intervalMs = 100 } = {}) {
    this.intervalMs = intervalMs;
    this.active = new Set();
    this.peak = new Map(); // root -> bytes, whole run
    this.windowPeak = new Map(); // root -> bytes, since resetWindow()
    this.seen = new Map(); // pid -> { comm, start }
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
    if (!roots.length) return;
    const { rss, seen } = sampleTrees(roots);
    if (!rss) return;
    for (const [root, bytes] of rss) {
      this.peak.set(root, Math.max(this.peak.get(root) || 0, bytes));
      this.windowPeak.set(root, Math.max(this.windowPeak.get(root) || 0, bytes));
    }
    for (const s of seen) this.seen.set(s.pid, s);
  }

  resetWindow(root) {
    this.windowPeak.delete(root);
  }
}

/** Pids from `seen` that are still the same live (non-zombie) process. */
export function stillRunning(seen) {
  if (!HAS_PROC) return [];
  const table = processTable();
  const out = [];
  for (const [pid, { comm, start }] of seen) {
    const now = table.get(pid);
    if (now && now.comm === comm && now.start === start && now.state !== 'Z') out.push(pid);
  }
  return out;
}

/**
 * End every process that `sampler` saw in our trees and that is still the same process
 * (same pid, comm and start time), e.g. a browser left behind by a worker that crashed.
 * Returns the pids it signalled.
 */
export function killLeftovers(seen, signal = 'SIGKILL') {
  const killed = [];
  for (const pid of stillRunning(seen)) {
    try {
      process.kill(pid, signal);
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}
