import { readFileSync, readdirSync } from 'node:fs';

/**
 * What Linux's /proc says of Chromium's processes: which belong to a browser, what kind each is,
 * the CPU time and memory each holds. Playwright does not tell which process draws which page,
 * so the watchdog and a forced shutdown work from here. Elsewhere (no /proc) every reading is
 * empty and those defences are off.
 */

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on. */
const MS_PER_TICK = 10;

export interface ProcessSample {
  pid: number;
  /** Chromium's `--type=` (renderer, gpu-process, utility, zygote), or `browser` for the browser itself. */
  kind: string;
  /** CPU time used since the process started, user and system. */
  cpuMs: number;
  /** Resident memory. */
  rssBytes: number;
}

/** The process whose command line holds `arg` exactly (e.g. `--user-data-dir=<profile>`). */
export function findProcessWithArg(arg: string): number | undefined {
  for (const pid of allPids()) {
    if (commandLine(pid).includes(arg)) return pid;
  }
  return undefined;
}

/** `root` and every process below it, parents before children. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree = isLive(root) ? [root] : [];
  for (const pid of tree) tree.push(...(children.get(pid) ?? []));
  return tree;
}

/** A reading of every process of the tree under `root`; processes gone meanwhile are left out. */
export function sampleTree(root: number): ProcessSample[] {
  return processTree(root).flatMap((pid) => {
    const sample = sampleProcess(pid);
    return sample ? [sample] : [];
  });
}

/** SIGKILL to every process of the tree under `root`, children first; what is gone already is skipped. */
export function killTree(root: number): void {
  for (const pid of processTree(root).reverse()) killProcess(pid);
}

export function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

function sampleProcess(pid: number): ProcessSample | undefined {
  const stat = statFields(pid);
  const status = readProc(pid, 'status');
  if (!stat || status === undefined) return undefined;
  const rssKb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  const kind = /--type=([\w-]+)/.exec(commandLine(pid).join(' '))?.[1] ?? 'browser';
  return { pid, kind, cpuMs: (Number(stat[11]) + Number(stat[12])) * MS_PER_TICK, rssBytes: Number(rssKb ?? 0) * 1024 };
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] | undefined {
  const stat = readProc(pid, 'stat');
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function parentOf(pid: number): number | undefined {
  const parent = statFields(pid)?.[1];
  return parent === undefined ? undefined : Number(parent);
}

function isLive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

function commandLine(pid: number): string[] {
  return (readProc(pid, 'cmdline') ?? '').split('\0');
}

function allPids(): number[] {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
