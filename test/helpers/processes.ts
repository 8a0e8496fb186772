import { execFileSync } from 'node:child_process';

/** How many processes with exactly this name run now (for leak checks). */
export function countProcesses(name: string): number {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}
