import { execFileSync } from 'node:child_process';

/** PIDs of the direct children of `parent` with this exact name. */
/** The browsers `parent` started: Chromium, full or headless shell (its name cut to 15 characters). */
export function chromiumChildren(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent), '^chromium'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
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

/** PIDs of `root` and every process below it. */
export function processTree(root: number): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    try {
      tree.push(...execFileSync('pgrep', ['-P', String(tree[i])], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number));
    } catch {
      // no children
    }
  }
  return tree;
}
