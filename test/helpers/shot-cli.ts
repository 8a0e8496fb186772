import { spawn } from 'node:child_process';
import { BUILT_CLI } from './built-service.js';

export interface ShotRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** The built CLI's `shot` as a separate process in `cwd`, local addresses allowed, `input` on its standard input. */
export function runShot(cwd: string, args: string[], input = ''): Promise<ShotRun> {
  return runCli(cwd, ['shot', ...args], input);
}

/** The built CLI's command `args[0]` as a separate process in `cwd`, local addresses allowed, `input` on its standard input. */
export function runCli(cwd: string, args: string[], input = '', env: NodeJS.ProcessEnv = process.env): Promise<ShotRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args, '--allow-private-networks', '--quiet'], { cwd, env: { ...env, CAPTURE_LOG_LEVEL: 'silent' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.end(input);
  });
}
