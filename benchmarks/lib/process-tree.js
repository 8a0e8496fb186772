// Processes and process trees, from /proc (Linux only; elsewhere the table is empty).

import fs from 'node:fs';

export const HAS_PROC = fs.existsSync('/proc/self/stat');

/** Clock ticks per second of the CPU times in /proc (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/**
 * Map of pid -> { ppid, ticks, childTicks, comm, start, state } for every process in /proc:
 * ticks = utime + stime, childTicks = cutime + cstime (its reaped children), start = start time.
 */
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
      ticks: Number(fields[11]) + Number(fields[12]),
      childTicks: Number(fields[13]) + Number(fields[14]),
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

/**
 * CPU time (clock ticks) used so far by the live processes of a tree; with `reaped`, also what
 * their reaped children used (e.g. an ffmpeg that has already exited).
 */
export function treeTicks(root, { reaped = false } = {}) {
  const table = processTable();
  let ticks = 0;
  for (const pid of treePids(root, table)) {
    const p = table.get(pid);
    ticks += p.ticks + (reaped ? p.childTicks : 0);
  }
  return ticks;
}

/** CPU time (clock ticks) used so far by one process, NaN if it is gone. */
export const processTicks = (pid) => processTable().get(pid)?.ticks ?? NaN;
