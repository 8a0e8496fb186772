import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { decode } from '../helpers/pixels.js';

/**
 * What a cold `capture-engine shot`, or an import of the library, loads: only what is used (issue
 * 31). Each run records every module its process loaded, ES modules through a loader hook and
 * CommonJS ones from `require.cache` at exit, so a static import that slips back onto the cold path
 * fails here.
 */
let fixtures: FixtureServer;
let scratch: string;
let recorder: string;

/** Packages a plain screenshot of a URL must never load, and what each is for. */
const NOT_ON_THE_COLD_PATH = {
  '@ghostery/adblocker-playwright': 'block_ads',
  '@duckduckgo/autoconsent': 'block_cookies',
  '@cantoo/pdf-lib': 'PDF metadata',
  'pdf-lib': 'pdf_split',
  're2-wasm': 'URL allow and deny lists',
  execa: 'ffmpeg (videos)',
  socks: 'SOCKS proxies',
  'mime-types': 'uploaded files',
  yaml: '--multi',
  bullmq: 'worker',
  ioredis: 'serve, worker',
  '@aws-sdk/client-s3': 'S3 storage',
  express: 'serve',
  fastify: 'serve',
  koa: 'serve',
  '@opentelemetry/sdk-node': 'tracing export',
};

beforeAll(async () => {
  fixtures = await startFixtureServer();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-cold-'));
  // Loader hooks run on their own thread in Node 20: they append what they load to a file.
  writeFileSync(path.join(scratch, 'hooks.mjs'), "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(process.env.LOADED_LOG, `${url}\\n`);\n  return next(url, context);\n}\n");
  recorder = path.join(scratch, 'record.cjs');
  writeFileSync(
    recorder,
    [
      "const { register } = require('node:module');",
      "const { appendFileSync } = require('node:fs');",
      "const { pathToFileURL } = require('node:url');",
      `register(${JSON.stringify(pathToFileURL(path.join(scratch, 'hooks.mjs')).href)});`,
      "process.on('exit', () => appendFileSync(process.env.LOADED_LOG, Object.keys(require.cache).map((file) => `${pathToFileURL(file).href}\\n`).join('')));",
    ].join('\n'),
  );
});
afterAll(async () => {
  await fixtures?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Packages `import('capture-engine')` must not load: the HTTP service's, loaded when first used. */
const NOT_ON_THE_LIBRARY_IMPORT = {
  'prom-client': 'createCaptureMetrics',
  'rate-limiter-flexible': 'rate limits and quotas',
  busboy: 'uploads',
  'mime-types': 'uploads and files',
};

/** Runs `shot` in a fresh process; resolves with the packages it loaded (by name) and its output. */
function shot(name: string, args: string[]): Promise<{ packages: Set<string>; files: string[]; out: string; code: number | null }> {
  return recorded(name, [BUILT_CLI, 'shot', ...args]);
}

/** Runs node with `args` in a fresh process that records what it loads. */
function recorded(name: string, args: string[]): Promise<{ packages: Set<string>; files: string[]; out: string; code: number | null }> {
  const log = path.join(scratch, `${name}.log`);
  writeFileSync(log, '');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', recorder, ...args], {
      env: { ...process.env, LOADED_LOG: log, CAPTURE_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const files = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const packages = new Set(files.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
      resolve({ packages, files, out, code });
    });
  });
}

describe.skipIf(!isBuilt())('the cold path of capture-engine shot and of the library', () => {
  it('loads none of the modules a plain screenshot does not use, and Playwright through require', async () => {
    const output = path.join(scratch, 'plain.png');
    const run = await shot('plain', [fixtures.url('/status?code=200'), '-o', output, '--width', '320', '--height', '200', '--allow-private-networks']);
    expect(run.code, run.out).toBe(0);
    const image = await decode(readFileSync(output));
    expect([image.width, image.height]).toEqual([320, 200]);
    expect(image.at(300, 180)).toEqual([0, 0, 255]);
    // The recording works: the engine's own packages show up.
    for (const used of ['playwright-core', 'pino']) expect(run.packages, used).toContain(used);
    // Chromium encoded the PNG and the page had painted its text before the shot: nothing to decode.
    expect(run.packages.has('sharp'), 'sharp was loaded').toBe(false);
    for (const [name, usedBy] of Object.entries(NOT_ON_THE_COLD_PATH)) expect(run.packages.has(name), `${name} (for ${usedBy}) was loaded`).toBe(false);
    // An ES import of playwright-core goes through its index.mjs, which makes Node scan the whole bundle.
    expect(run.files.filter((url) => url.includes('/playwright-core/index.mjs'))).toEqual([]);
  });

  it("imports the library without the HTTP service's packages", async () => {
    const entry = pathToFileURL(BUILT_CLI.replace(/cli\.js$/, 'index.js')).href;
    const run = await recorded('library', ['--input-type=module', '-e', `const { createCaptureEngine } = await import(${JSON.stringify(entry)}); if (typeof createCaptureEngine !== 'function') process.exit(3);`]);
    expect(run.code, run.out).toBe(0);
    expect(run.packages).toContain('playwright-core');
    for (const [name, usedBy] of Object.entries(NOT_ON_THE_LIBRARY_IMPORT)) expect(run.packages.has(name), `${name} (for ${usedBy}) was loaded`).toBe(false);
  });

  it('loads the ad-blocking engine, the PDF library and sharp for the captures that need them', async () => {
    const blocked = await shot('blocked', [fixtures.url('/solid'), '-o', path.join(scratch, 'blocked.avif'), '--width', '200', '--height', '100', '--block-ads', '--allow-private-networks']);
    expect(blocked.code, blocked.out).toBe(0);
    expect(readFileSync(path.join(scratch, 'blocked.avif')).subarray(4, 12).toString()).toBe('ftypavif');
    expect(blocked.packages).toContain('@ghostery/adblocker-playwright');
    // Chromium has no AVIF encoder: sharp encodes it.
    expect(blocked.packages).toContain('sharp');
    const output = path.join(scratch, 'titled.pdf');
    const titled = await shot('titled', [fixtures.url('/solid'), '-o', output, '--format', 'pdf', '--pdf-title', 'Cold', '--allow-private-networks']);
    expect(titled.code, titled.out).toBe(0);
    expect(readFileSync(output).subarray(0, 5).toString()).toBe('%PDF-');
    expect(titled.packages).toContain('@cantoo/pdf-lib');
    expect(titled.packages.has('@ghostery/adblocker-playwright')).toBe(false);
  });
});
