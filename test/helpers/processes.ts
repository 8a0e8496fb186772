import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sampleTree } from '../../src/browser/process-tree.js';

/** The browsers `parent` started: Chromium, full or headless shell (its name cut to 15 characters). */
export function chromiumChildren(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent), '^chromium'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` runs (a zombie waiting for its parent to reap it does not), from /proc. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** PIDs of `root` and every process below it, from /proc (the engine's own reading). */
export { processTree } from '../../src/browser/process-tree.js';

/** The share of one core the processes below `root` (not `root` itself) used over the next `ms`, from /proc. */
export async function cpuShareBelow(root: number, ms: number): Promise<number> {
  const before = new Map(sampleTree(root).filter(({ pid }) => pid !== root).map(({ pid, cpuMs }) => [pid, cpuMs]));
  await sleep(ms);
  let used = 0;
  for (const { pid, cpuMs } of sampleTree(root)) used += cpuMs - (before.get(pid) ?? cpuMs);
  return used / ms;
}

/** PIDs of the Chromium renderers below `root`. */
export function renderersBelow(root: number): number[] {
  return sampleTree(root).filter(({ kind }) => kind === 'renderer').map(({ pid }) => pid);
}
