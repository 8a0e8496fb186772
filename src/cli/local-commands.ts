import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/**
 * shot-scraper's `sh:`, `python:` and `server:` (multi files and video storyboards, release 1.11):
 * commands of the user's own YAML file, run on their machine as the shell would run them. Only the
 * CLI reads these keys; the HTTP service's parameters have none. Each command is bounded in time,
 * its output goes to stderr as it comes (never held, and never mixed into a file on stdout), and
 * it reads no input. A failure exits 1, as a ClickException does there.
 */
export type Command = string | (string | number)[];

/** How long one `sh:` or `python:` may run. */
const COMMAND_TIMEOUT_MS = 10 * 60_000;
/** How long a `server:` has to accept connections (shot-scraper's SERVER_READY_TIMEOUT). */
const SERVER_READY_MS = 30_000;

export function isCommand(value: unknown): value is Command {
  return typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string' || typeof part === 'number'));
}

/** Started in a process group of its own, so that what a shell started goes with it. */
function start(command: Command): ChildProcess {
  const options = { stdio: ['ignore', process.stderr, process.stderr] as ['ignore', NodeJS.WriteStream, NodeJS.WriteStream], detached: true };
  return typeof command === 'string' ? spawn(command, { ...options, shell: true }) : spawn(String(command[0]), command.slice(1).map(String), options);
}

const killGroup = (child: ChildProcess): void => {
  try {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/** Runs `sh:` (a shell line, or a program and its arguments) or `python:` code; a non-zero exit fails as shot-scraper words it. */
export async function runLocal(kind: 'sh' | 'python', command: Command): Promise<void> {
  const child = start(kind === 'python' ? ['python3', '-c', String(command)] : command);
  const what = kind === 'sh' ? 'sh command' : 'python code';
  const timer = setTimeout(() => killGroup(child), COMMAND_TIMEOUT_MS);
  try {
    const status = await new Promise<number | string>((resolve, reject) => {
      child.once('error', (error) => reject(new Error(`${what} failed: ${error.message}`)));
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    });
    if (status !== 0) throw new Error(`${what} exited with status ${String(status)}${status === 'SIGKILL' ? ` (at most ${COMMAND_TIMEOUT_MS / 60_000} minutes)` : ''}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The `server:` processes of a command, stopped when it ends unless `--leave-server`. */
export class Servers {
  private readonly running: { child: ChildProcess; command: Command }[] = [];

  start(command: Command): void {
    const child = start(command);
    child.once('error', () => undefined);
    this.running.push({ child, command });
  }

  get started(): boolean {
    return this.running.length > 0;
  }

  /** shot-scraper's _wait_for_server: until the URL's port accepts a connection, a server exiting with an error fails it, and after 30 s the page's load says what is wrong. */
  async ready(url: string): Promise<void> {
    let host: string;
    let port: number;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
      host = parsed.hostname.replace(/^\[|\]$/g, '');
      port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    } catch {
      return new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const deadline = Date.now() + SERVER_READY_MS;
    for (;;) {
      const failed = this.running.find(({ child }) => child.exitCode !== null && child.exitCode !== 0);
      if (failed) throw new Error(`server: process exited with code ${String(failed.child.exitCode)}: ${JSON.stringify(failed.command)}`);
      if (await accepts(host, port)) return;
      if (Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  stop(leave: boolean): void {
    for (const { child, command } of this.running) {
      if (leave) process.stderr.write(`Leaving server PID: ${String(child.pid)} details: ${JSON.stringify(command)}\n`);
      else killGroup(child);
    }
    if (leave) for (const { child } of this.running) child.unref();
  }
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
