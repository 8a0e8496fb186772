import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedPort } from './ports.js';

/** The built CLI that `npm start` runs (`npm test` builds it first). */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
export const isBuilt = (): boolean => existsSync(BUILT_CLI);

export interface BuiltProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with its exit code once it has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, and wait until it has exited. */
  stop(): Promise<void>;
  /** SIGKILL to its whole process group (it and its browser), as when a container is killed. */
  killGroup(): Promise<void>;
}

export interface BuiltService extends BuiltProcess {
  origin: string;
}

/** Built processes not yet exited. */
const live = new Set<BuiltProcess>();

/**
 * Kills, with their browsers, the built processes a file's tests left running: a test that fails
 * before it stops its service must not leave it (and its Chromium) behind. For `afterAll`.
 */
export async function killLeftoverBuiltProcesses(): Promise<void> {
  await Promise.all([...live].map((built) => built.killGroup()));
}

/**
 * Runs the built CLI in a process group of its own, so it can be killed with its browser;
 * `cleanup` runs once it has exited, before `exited` resolves.
 */
function runBuilt(args: string[], env: Record<string, string>, cleanup: () => Promise<void> = async () => undefined): BuiltProcess {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))).then(async (code) => {
    await cleanup();
    return code;
  });
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const built: BuiltProcess = {
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      await exited;
    },
    killGroup: async () => {
      if (running()) process.kill(-(child.pid as number), 'SIGKILL');
      await exited;
    },
  };
  live.add(built);
  void exited.then(() => live.delete(built));
  return built;
}

/**
 * `capture-engine serve` on a free port with `adapter` (and `extraArgs`), once it answers. The files
 * it stores go to a directory of its own, removed once it has exited, unless `env` names one.
 */
export async function startBuiltService(adapter: string, env: Record<string, string>, extraArgs: string[] = [], chosenPort?: number): Promise<BuiltService> {
  // A port chosen beforehand, for a service whose settings name its own address.
  const port = chosenPort ?? (await closedPort());
  const ownStorage = env.CAPTURE_STORAGE_DIR === undefined ? await mkdtemp(path.join(os.tmpdir(), 'built-service-')) : undefined;
  const args = ['serve', '--port', String(port), '--host', '127.0.0.1', '--adapter', adapter, ...extraArgs];
  const built = runBuilt(args, ownStorage ? { CAPTURE_STORAGE_DIR: ownStorage, ...env } : env, async () => {
    if (ownStorage) await rm(ownStorage, { recursive: true, force: true });
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${origin}/api/v1/openapi.json`).then((r) => r.ok, () => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { ...built, origin };
}

/** `capture-engine worker`, once it says it is ready. */
export async function startBuiltWorker(env: Record<string, string>, args: string[] = []): Promise<BuiltProcess> {
  const built = runBuilt(['worker', ...args], env);
  for (let i = 0; i < 150 && !built.output().includes('worker ready'); i++) {
    if (built.child.exitCode !== null) throw new Error(`the worker exited: ${built.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return built;
}

/**
 * A directory for the files of built services and workers that share it, with `tmp` inside for
 * their temporary files (a process killed with SIGKILL cannot remove its browser profile, which
 * then goes with the directory). As root the processes run Chromium as another user, who must be
 * able to pass through.
 */
export async function sharedStorageDir(prefix: string): Promise<{ storageDir: string; tempDir: string }> {
  const storageDir = await mkdtemp(path.join(os.tmpdir(), prefix));
  await chmod(storageDir, 0o711);
  const tempDir = path.join(storageDir, 'tmp');
  await mkdir(tempDir);
  return { storageDir, tempDir };
}
