// Memory of processes and process trees, from /proc (Linux only; elsewhere null).
//
// The RSS of a tree is the sum of VmRSS of the root and every descendant. Chromium's processes
// share many pages, so the sum over-counts shared memory; it is the same bias for every
// contender, and it is what `ps`/`top` users add up. PSS splits each shared page between its
// users, so the PSS of a tree counts it once.

import fs from 'node:fs';
import { processTable, treePids } from './process-tree.js';

function readKb(pid, file, pattern) {
  try {
    const m = pattern.exec(fs.readFileSync(`/proc/${pid}/${file}`, 'latin1'));
    return m ? Number(m[1]) : null; // zombies and kernel threads have no VmRSS
  } catch {
    return null; // gone, or the file is unavailable
  }
}

/** Resident set size of one process in bytes (VmRSS), null if unknown. */
export function rssBytes(pid) {
  const kb = readKb(pid, 'status', /VmRSS:\s+(\d+) kB/);
  return kb === null ? null : kb * 1024;
}

/** Proportional set size of one process in bytes (smaps_rollup), null if unknown. */
export function pssBytes(pid) {
  const kb = readKb(pid, 'smaps_rollup', /^Pss:\s+(\d+) kB/m);
  return kb === null ? null : kb * 1024;
}

/** Sum of `read(pid)` over `pids`, an unknown value counting 0. */
export const sumOver = (pids, read) => pids.reduce((sum, pid) => sum + (read(pid) ?? 0), 0);

/** Summed RSS and PSS (bytes) of a process tree, and how many processes it has. */
export function treeMemory(root) {
  const pids = treePids(root, processTable());
  return { rss: sumOver(pids, rssBytes), pss: sumOver(pids, pssBytes) || null, processes: pids.length };
}
