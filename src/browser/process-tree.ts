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
  return treeStats(root).map(([pid]) => pid);
}

/** A reading of every process of the tree under `root`; processes gone meanwhile are left out. */
export function sampleTree(root: number): ProcessSample[] {
  return treeStats(root).flatMap(([pid, stat]) => {
    const sample = sampleProcess(pid, stat);
    return sample ? [sample] : [];
  });
}

/** The tree's processes with their stat fields, from one reading of every process's stat (the sampling reuses it). */
function treeStats(root: number): [number, string[]][] {
  const stats = new Map<number, string[]>();
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const stat = statFields(pid);
    if (!stat) continue;
    stats.set(pid, stat);
    const parent = Number(stat[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const rootState = stats.get(root)?.[0];
  const tree = rootState !== undefined && rootState !== 'Z' && rootState !== 'X' ? [root] : [];
  for (const pid of tree) tree.push(...(children.get(pid) ?? []));
  return tree.flatMap((pid) => {
    const stat = stats.get(pid);
    return stat ? [[pid, stat] as [number, string[]]] : [];
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

function sampleProcess(pid: number, stat: string[]): ProcessSample | undefined {
  const status = readProc(pid, 'status');
  if (status === undefined) return undefined;
  const rssKb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return { pid, kind: kindOf(pid, stat[19] ?? ''), cpuMs: (Number(stat[11]) + Number(stat[12])) * MS_PER_TICK, rssBytes: Number(rssKb ?? 0) * 1024 };
}

/** Kinds by pid and start time (a pid reused starts at another time), so that a command line is read once, not every second. */
const kinds = new Map<string, string>();

/**
 * A zygote's kind and the browser's are read again every time: a renderer is forked from a zygote
 * and renames its command line to `--type=renderer` a moment later, a child the browser starts
 * holds the browser's command line until it runs its own, and a renderer taken for either would
 * escape the watchdog for its life.
 */
function kindOf(pid: number, startTime: string): string {
  const key = `${pid}:${startTime}`;
  const known = kinds.get(key);
  if (known !== undefined) return known;
  const kind = /--type=([\w-]+)/.exec(commandLine(pid).join(' '))?.[1];
  if (kind === undefined || kind === 'zygote') return kind ?? 'browser';
  if (kinds.size >= 10_000) kinds.clear();
  kinds.set(key, kind);
  return kind;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] | undefined {
  const stat = readProc(pid, 'stat');
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
