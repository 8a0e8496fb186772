import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { createTestEngine } from '../helpers/engine.js';
import { startService } from '../ops/service-under-test.js';
import { closedPort } from '../helpers/ports.js';
import { isCaptureError } from '../../src/index.js';

/** What a new user meets in the first hour (issue 50, section 2), on the built CLI and the service. */
const KEY = randomBytes(32).toString('hex');
let fixtures: FixtureServer;
let scratch: string;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'first-hour-'));
});
afterAll(async () => {
  await fixtures?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI's `shot`, its environment without any allowance of private networks unless given. */
function shot(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPTURE_ALLOW')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_CLI, 'shot', ...args], { env: { ...base, CAPTURE_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const fixturePort = (): string => new URL(fixtures.origin).port;

// Item 1: the first capture of a local page answered "not allowed", and nothing said how to allow it.
describe.skipIf(!isBuilt())('a local address the egress guard refuses', () => {
  it('names how to allow it in the HTTP details, and following that captures it', async () => {
    const service = await startService({ allowPrivateNetworks: false }, { apiKeys: [{ key: KEY, tier: 'PRO' }] });
    try {
      const response = await fetch(`${service.origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid'))}`, { headers: { 'X-API-Key': KEY } });
      expect(response.status).toBe(403);
      const body = (await response.json()) as { code: string; hint?: string };
      expect(body.code).toBe('URL_NOT_ALLOWED');
      expect(body.hint).toContain(`CAPTURE_ALLOW_ADDRESSES=127.0.0.1:${fixturePort()}`);
      expect(body.hint).toContain(`allowAddress: ['127.0.0.1:${fixturePort()}']`);
      expect(body.hint).toContain('--allow-private-networks');
      const byName = (await (await fetch(`${service.origin}/api/v1/capture?url=${encodeURIComponent(`http://localhost:${fixturePort()}/solid`)}`, { headers: { 'X-API-Key': KEY } })).json()) as { hint?: string };
      expect(byName.hint).toContain(`capture its address instead (http://127.0.0.1:${fixturePort()}/)`);
    } finally {
      await service.close();
    }
    const engine = await createTestEngine({ allowPrivateNetworks: false, allowAddress: [`127.0.0.1:${fixturePort()}`] });
    try {
      const result = await engine.capture({ url: fixtures.url('/solid'), viewport_width: 200, viewport_height: 100 });
      expect(result.format).toBe('png');
      await result.dispose();
    } finally {
      await engine.close();
    }
  });

  it('names it on the CLI, where CAPTURE_ALLOW_ADDRESSES then captures it', async () => {
    const output = path.join(scratch, 'local.png');
    const refused = await shot([fixtures.url('/solid'), '-o', output]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('URL_NOT_ALLOWED');
    expect(refused.stderr).toContain(`CAPTURE_ALLOW_ADDRESSES=127.0.0.1:${fixturePort()}`);
    expect(refused.stderr).toContain('--allow-private-networks');
    const allowed = await shot([fixtures.url('/solid'), '-o', output, '--width', '200', '--height', '100'], { CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${fixturePort()}` });
    expect(allowed.code, allowed.stderr).toBe(0);
  });
});

// Item 10: a closed port that CAPTURE_ALLOW_ADDRESSES names was captured as the egress proxy's
// UPSTREAM_UNREACHABLE page (exit 0), and every failure exited 1.
describe.skipIf(!isBuilt())('an allowed address with nothing listening', () => {
  it('fails the capture as CAPTURE_FAILED in the library and over HTTP, never capturing the proxy\'s answer', async () => {
    const port = await closedPort();
    const target = `http://127.0.0.1:${port}/`;
    const service = await startService({ allowPrivateNetworks: false, allowAddress: [`127.0.0.1:${port}`] }, { apiKeys: [{ key: KEY, tier: 'PRO' }] });
    try {
      const failure = await service.engine.capture({ url: target, viewport_width: 200, viewport_height: 100 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isCaptureError(failure) && failure.code).toBe('CAPTURE_FAILED');
      expect(isCaptureError(failure) && failure.details.reason).toBe('unreachable');
      const response = await fetch(`${service.origin}/api/v1/capture?url=${encodeURIComponent(target)}&response_type=json`, { headers: { 'X-API-Key': KEY } });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'unreachable' });
    } finally {
      await service.close();
    }
  });

  it('exits 4 on the CLI and writes no file', async () => {
    const port = await closedPort();
    const output = path.join(scratch, 'closed.png');
    const run = await shot([`http://127.0.0.1:${port}/`, '-o', output], { CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${port}` });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('CAPTURE_FAILED');
    expect(existsSync(output)).toBe(false);
  });
});

describe.skipIf(!isBuilt())('the exit status of capture-engine shot', () => {
  it('tells usage, refused input and a timeout apart, lists them in --help, and prefixes its name once', async () => {
    const output = path.join(scratch, 'exit.png');
    const help = await shot(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit status:[\s\S]*2 +usage[\s\S]*3 +refused input[\s\S]*4 +target unreachable[\s\S]*5 +timeout/);
    // A URL without -o is shot-scraper's convention (a file named after the URL: issue 55), no usage error.
    for (const args of [['--widht', '300', fixtures.url('/solid'), '-o', output], ['-o', output], ['--width']]) {
      const usage = await shot(args);
      expect(usage.code, args.join(' ')).toBe(2);
      expect(usage.stderr).not.toContain('capture-engine: capture-engine');
      expect(usage.stderr).toContain('capture-engine shot <url> -o <file>');
    }
    expect((await shot(['--widht', '300'])).stderr).toContain('unknown flag --widht (did you mean --width?)');
    const invalid = await shot([fixtures.url('/solid'), '-o', output, '--viewport-width', '5'], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain('INVALID_PARAMETER');
    const missingFile = await shot(['--html', `@${path.join(scratch, 'no-such.html')}`, '-o', output]);
    expect(missingFile.code).toBe(3);
    expect(missingFile.stderr).toContain('--html @');
    const refused = await shot([fixtures.url('/solid'), '-o', output]);
    expect(refused.code).toBe(3);
    const timeout = await shot([fixtures.url('/never'), '-o', output], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_TIMEOUT_MS: '1000' });
    expect(timeout.code, timeout.stderr).toBe(5);
    expect(timeout.stderr).toContain('CAPTURE_TIMEOUT');
    expect(existsSync(output)).toBe(false);
  });
});

// Item 11: shot --help listed --response-type, --async and --cache, which it took and ignored.
describe.skipIf(!isBuilt())('HTTP parameters on the CLI', () => {
  it('--response-type json prints the capture as JSON; --async and --cache are refused by name', async () => {
    const output = path.join(scratch, 'described.png');
    const described = await shot([fixtures.url('/solid'), '-o', output, '--width', '200', '--height', '100', '--response-type', 'json'], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(described.code, described.stderr).toBe(0);
    const report = JSON.parse(described.stdout) as { file: string; size: number; format: string; id: string; timings: Record<string, number> };
    expect(report).toMatchObject({ file: output, size: statSync(output).size, format: 'PNG' });
    expect(report.id).toMatch(/^[\w-]{22,}$/);
    expect(report.timings.navigate).toBeGreaterThan(0);
    for (const flag of [['--async'], ['--cache'], ['--cache-ttl', '600'], ['--webhook-url', 'https://example.com/hook']]) {
      const refused = await shot([fixtures.url('/solid'), '-o', path.join(scratch, 'never.png'), ...flag], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' });
      expect(refused.code, flag[0]).toBe(2);
      expect(refused.stderr).toContain(`${flag[0]} is for the HTTP service`);
    }
    expect(existsSync(path.join(scratch, 'never.png'))).toBe(false);
    const shots = path.join(scratch, 'cached.yml');
    writeFileSync(shots, `- output: ${path.join(scratch, 'never.png')}\n  url: ${fixtures.url('/solid')}\n  cache: true\n`);
    const multi = await shot(['--multi', shots], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(multi.code).toBe(3);
    expect(multi.stderr).toContain('cache is for the HTTP service');
    const help = await shot(['--help']);
    expect(help.stdout).toContain('--response-type <image, json>');
    expect(help.stdout).not.toMatch(/--(async|cache|cache-ttl|fresh|webhook-url) </);
    expect(help.stdout).toMatch(/HTTP service only[^\n]*--async[^\n]*--cache/);
    const top = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [BUILT_CLI, 'help'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.once('exit', () => resolve(text));
    });
    expect(top).toMatch(/--multi <shots\.yml>[^\n]*YAML/);
  });
});

/** `shot` under a pseudo-terminal of 120 columns (util-linux's script): what a person at a terminal sees, escapes included. */
function shotOnTerminal(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;
  const command = `stty cols 120 rows 40; ${[process.execPath, BUILT_CLI, 'shot', ...args].map(quote).join(' ')}`;
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, CAPTURE_LOG_LEVEL: 'silent', CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// Item 9: a 10 s video was 11 silent seconds.
describe.skipIf(!isBuilt())('progress of capture-engine shot', () => {
  it('shows the phase, the seconds and a bar of frames on a terminal', async () => {
    const output = path.join(scratch, 'progress.mp4');
    const run = await shotOnTerminal([fixtures.url('/bands'), '-o', output, '--format', 'mp4', '--duration', '2', '--width', '320', '--height', '240']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/progress\.mp4: encode, \d+\.\d s \[[\u2588\u2591]{30}\] \d+\/60 frames/);
    // The result line, once the bar is cleared.
    expect(run.stdout).toContain(`${output}: mp4,`);
  });

  it('shows a bar of the shots for --multi', async () => {
    const shots = path.join(scratch, 'progress.yml');
    writeFileSync(shots, [0, 1].map((n) => `- output: ${path.join(scratch, `multi-${n}.png`)}\n  url: ${fixtures.url('/solid')}\n  width: 200\n  height: 100`).join('\n'));
    const run = await shotOnTerminal(['--multi', shots]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/\[[\u2588\u2591]{30}\] 1\/2 shots/);
    expect(run.stdout).toMatch(/multi-1\.png: \w+, \d+\.\d s/);
  });

  it('shows nothing with --quiet, or when stderr is not a terminal', async () => {
    const output = path.join(scratch, 'quiet.png');
    const quiet = await shotOnTerminal([fixtures.url('/solid'), '-o', output, '--width', '200', '--height', '100', '--quiet']);
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(quiet.stdout.trim()).toBe(`${output}: png, ${statSync(output).size} bytes`);
    const piped = await shot([fixtures.url('/solid'), '-o', output, '--width', '200', '--height', '100'], { CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe(`${output}: png, ${statSync(output).size} bytes\n`);
  });
});
