import { execFileSync } from 'node:child_process';

/** How many processes with exactly this name run now (for leak checks). */
export function countProcesses(name: string): number {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** PIDs of the direct children of `parent` with this exact name. */
export function childProcesses(parent: number, name: string): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent), '-x', name], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
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
