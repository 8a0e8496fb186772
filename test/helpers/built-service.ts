import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closedPort } from './ports.js';

/** The built CLI that `npm start` runs (`npm test` builds it first). */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
export const isBuilt = (): boolean => existsSync(BUILT_CLI);

export interface BuiltService {
  child: ChildProcess;
  origin: string;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, and wait until it has exited. */
  stop(): Promise<void>;
}

/** `capture-engine serve` on a free port with `adapter`, once it answers. */
export async function startBuiltService(adapter: string, env: Record<string, string>): Promise<BuiltService> {
  const port = await closedPort();
  const child = spawn(process.execPath, [BUILT_CLI, 'serve', '--port', String(port), '--host', '127.0.0.1', '--adapter', adapter], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${origin}/api/v1/openapi.json`).then((r) => r.ok, () => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    child,
    origin,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
