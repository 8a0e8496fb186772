// The processes of a contender's tree by kind, from /proc (Linux): the worker's Node process
// (the root), Chromium's browser process (no --type), and its helpers by their --type: renderers
// (those with --top-chrome-webui, the full browser's own UI pages, apart), zygotes, the GPU
// process, utilities by sub-type (network, storage, audio...), crashpad.
//
//   memoryByKind(root)  -> { rss, pss, processes, kinds: { [kind]: { rss, pss, count } } }  (bytes)
//   ticksByKind(root)   -> { [kind]: ticks }: CPU time so far, what exited children used included:
//     a zygote's reaped children (renderers of closed contexts) count as `renderer`, the browser's
//     as `exited (browser's children)`, Node's (a browser relaunched) as `exited (node's children)`.
//   new KindTicks(root): start() ... stop() -> { [kind]: ticks } over a window, the tree sampled in
//     between so that a process exiting meanwhile counts as its own kind.

import fs from 'node:fs';
import { pssBytes, rssBytes } from '../lib/process-memory.js';
import { processTable, treePids } from '../lib/process-tree.js';

export const TOP_CHROME_WEBUI = 'renderer (top-chrome-webui)';

/** Table columns come in this order; kinds not listed follow alphabetically. */
export const KIND_ORDER = [
  'node',
  'browser',
  'renderer',
  TOP_CHROME_WEBUI,
  'zygote',
  'gpu',
  'utility: network',
  'utility: storage',
  'crashpad',
];

const sortKinds = (kinds) =>
  [...kinds].sort((a, b) => {
    const ia = KIND_ORDER.indexOf(a);
    const ib = KIND_ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a.localeCompare(b);
  });
export { sortKinds };

function cmdlineOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return null; // gone
  }
}

// Kinds already seen, by process identity (pid and start time): a process that has just exited
// (a zombie: empty cmdline) keeps the kind it had.
const seen = new Map();

/** The kind of one process of the tree under `root`. */
export function kindOf(pid, root, table) {
  if (pid === root) return 'node';
  const p = table.get(pid);
  const id = `${pid}:${p?.start}`;
  const known = seen.get(id);
  if (known) return known;
  const cmd = cmdlineOf(pid);
  if (!cmd) {
    // Gone or a zombie: a zygote's child is a renderer; otherwise unknown (not remembered).
    const parent = p && table.has(p.ppid) ? seen.get(`${p.ppid}:${table.get(p.ppid).start}`) : undefined;
    return parent === 'zygote' ? 'renderer' : `other: ${p?.comm ?? '?'}`;
  }
  const kind = kindOfCommand(cmd, p?.comm);
  seen.set(id, kind);
  return kind;
}

function kindOfCommand(cmd, comm = '?') {
  const type = /--type=(\S+)/.exec(cmd)?.[1];
  if (!type) return /chrom/i.test(cmd) ? 'browser' : `other: ${comm}`;
  if (type === 'renderer') return cmd.includes('--top-chrome-webui') ? TOP_CHROME_WEBUI : 'renderer';
  if (type === 'zygote') return 'zygote';
  if (type === 'gpu-process') return 'gpu';
  if (type === 'crashpad-handler') return 'crashpad';
  if (type === 'utility') {
    const sub = /--utility-sub-type=(\S+)/.exec(cmd)?.[1] ?? '';
    return `utility: ${sub.split('.')[0] || 'other'}`; // network.mojom.NetworkService -> network
  }
  return type;
}

/** RSS and PSS of the tree under `root`, in total and by kind (bytes). */
export function memoryByKind(root) {
  const table = processTable();
  const kinds = {};
  let rss = 0;
  let pss = 0;
  const pids = treePids(root, table);
  for (const pid of pids) {
    const kind = kindOf(pid, root, table);
    const r = rssBytes(pid) ?? 0;
    const p = pssBytes(pid) ?? 0;
    kinds[kind] ??= { rss: 0, pss: 0, count: 0 };
    kinds[kind].rss += r;
    kinds[kind].pss += p;
    kinds[kind].count++;
    rss += r;
    pss += p;
  }
  return { rss, pss: pss || null, processes: pids.length, kinds };
}

/** Where the ticks a process of `kind` reaped from its exited children are counted. */
const reapedInto = (kind) =>
  kind === 'zygote' ? 'renderer' : kind === 'browser' ? "exited (browser's children)" : kind === 'node' ? "exited (node's children)" : kind;

/** Ticks by kind of the tree under `root` in `table`, and what was seen of each process. */
function tally(root, table) {
  const out = {};
  const procs = new Map(); // pid:start -> { kind, ticks (own + reaped), parent: ppid:start }
  const add = (kind, ticks) => {
    if (ticks) out[kind] = (out[kind] ?? 0) + ticks;
  };
  for (const pid of treePids(root, table)) {
    const p = table.get(pid);
    const kind = kindOf(pid, root, table);
    add(kind, p.ticks);
    add(reapedInto(kind), p.childTicks);
    procs.set(`${pid}:${p.start}`, { kind, ticks: p.ticks + p.childTicks, parent: `${p.ppid}:${table.get(p.ppid)?.start}` });
  }
  return { ticks: out, procs };
}

/** CPU ticks (utime + stime) used so far by the tree under `root`, by kind, reaped children included. */
export const ticksByKind = (root) => tally(root, processTable()).ticks;

/**
 * CPU ticks by kind over a window (start() to stop()), the tree sampled every `intervalMs` in
 * between, so that a process that exits meanwhile counts as its own kind (what it had used when
 * last seen; the rest of it as its reaper's children's kind) and not as the kind its reaper's
 * children count as: with the full Chromium, contexts closing end top-chrome-webui renderers too.
 * The total is exact either way.
 */
export class KindTicks {
  constructor(root, { intervalMs = 100 } = {}) {
    this.root = root;
    this.intervalMs = intervalMs;
    this.last = new Map();
  }

  read() {
    const now = tally(this.root, processTable());
    for (const [id, seen] of now.procs) this.last.set(id, seen);
    return now;
  }

  start() {
    this.last.clear();
    this.before = this.read();
    this.timer = setInterval(() => this.read(), this.intervalMs);
    this.timer.unref();
  }

  /** Ticks used per kind since start(). */
  stop() {
    clearInterval(this.timer);
    const after = this.read();
    const delta = ticksDelta(this.before.ticks, after.ticks);
    for (const [id, seen] of this.last) {
      const parent = after.procs.get(seen.parent);
      if (after.procs.has(id) || !parent || !seen.ticks) continue; // alive, or not reaped in the tree
      const bucket = reapedInto(parent.kind);
      delta[bucket] = (delta[bucket] ?? 0) - seen.ticks;
      delta[seen.kind] = (delta[seen.kind] ?? 0) + seen.ticks;
    }
    return delta;
  }
}

/** after - before, per kind (ticks). */
export function ticksDelta(before, after) {
  const out = {};
  for (const kind of new Set([...Object.keys(before), ...Object.keys(after)])) out[kind] = (after[kind] ?? 0) - (before[kind] ?? 0);
  return out;
}
