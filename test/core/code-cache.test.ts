import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, isBuilt } from '../helpers/built-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode } from '../helpers/pixels.js';

/**
 * playwright-core's compiled code is kept on disk between starts (src/core/loading/code-cache.ts, issue 31).
 * Each run is a fresh Node process on the build, as a CLI user's or a scaled worker's start is, on
 * the Node running this file: every Node line runs it (the `smoke` project, scripts/node-lines.mjs).
 * From Node 22.1 the cache is Node's own (`module.enableCompileCache`): a folder per Node version
 * with a file per module loaded from playwright-core's require on; on Node 20 it is the engine's, a
 * file per bundle that starts with its stamp line.
 */
const NODE_COMPILE_CACHE = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
let scratch: string;
let fixtures: FixtureServer;
const ENTRY = pathToFileURL(BUILT_CLI.replace(/cli\.js$/, 'index.js')).href;
const IMPORT = `const { createCaptureEngine } = await import(${JSON.stringify(ENTRY)}); if (typeof createCaptureEngine !== 'function') process.exit(3);`;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-code-cache-test-'));
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, CAPTURE_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}
const importLibrary = (env: Record<string, string>) => run(['--input-type=module', '-e', IMPORT], env);

/** The cache files under `dir`: path in it → { bytes, mtime, mode }. */
function cacheFiles(dir: string): Map<string, { bytes: Buffer; mtimeMs: number; mode: number }> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(files.map((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    const { mtimeMs, mode } = statSync(file);
    return [path.relative(dir, file), { bytes: readFileSync(file), mtimeMs, mode: mode & 0o777 }];
  }));
}

/** Its two bundles (3.5 MB each): the files whose cache is over 100 kB. */
const bundlesOf = (files: ReturnType<typeof cacheFiles>) => [...files].filter(([, { bytes }]) => bytes.length > 100_000);

describe.skipIf(!isBuilt())("playwright-core's code cache", () => {
  it('is written by the first start, read as it is by the next, and a capture runs on it', async () => {
    const dir = path.join(scratch, 'warm');
    const first = await importLibrary({ CAPTURE_CODE_CACHE_DIR: dir });
    expect(first.code, first.out).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const written = cacheFiles(dir);
    expect(bundlesOf(written)).toHaveLength(2);
    for (const [name, { bytes, mode }] of written) {
      expect(mode, name).toBe(0o600);
      if (NODE_COMPILE_CACHE) expect(name).toMatch(new RegExp(`^${process.version.replaceAll('.', '\\.')}-${process.arch}-[^/]+/[^/]+$`));
      else expect(bytes.subarray(0, bytes.indexOf(10)).toString()).toMatch(new RegExp(`^${process.version} ${process.arch} \\d+ `));
    }
    // Node 20's path caches the files over 64 KiB alone: the two bundles.
    if (!NODE_COMPILE_CACHE) expect(written.size).toBe(2);

    // V8 took the cache: a refused one would have been written again.
    const second = await importLibrary({ CAPTURE_CODE_CACHE_DIR: dir });
    expect(second.code, second.out).toBe(0);
    const output = path.join(scratch, 'warm.png');
    const shot = await run([BUILT_CLI, 'shot', fixtures.url('/status?code=200'), '-o', output, '--width', '320', '--height', '200', '--allow-private-networks'], { CAPTURE_CODE_CACHE_DIR: dir });
    expect(shot.code, shot.out).toBe(0);
    // Node's cache also gets the modules the shot loaded since; what the import wrote is as it was.
    const after = cacheFiles(dir);
    for (const [name, { bytes, mtimeMs }] of written) {
      expect(after.get(name)?.mtimeMs, name).toBe(mtimeMs);
      expect(after.get(name)?.bytes.equals(bytes), name).toBe(true);
    }
    const image = await decode(readFileSync(output));
    expect([image.width, image.height]).toEqual([320, 200]);
    expect(image.at(300, 180)).toEqual([0, 0, 255]);
  });

  it('replaces a damaged cache file, and loads all the same', async () => {
    const dir = path.join(scratch, 'damaged');
    expect((await importLibrary({ CAPTURE_CODE_CACHE_DIR: dir })).code).toBe(0);
    const [name, { bytes }] = bundlesOf(cacheFiles(dir))[0]!;
    // Node 20's path reads its own stamp line first: kept, so that V8 meets the damage.
    const header = NODE_COMPILE_CACHE ? Buffer.alloc(0) : bytes.subarray(0, bytes.indexOf(10) + 1);
    writeFileSync(path.join(dir, name), Buffer.concat([header, Buffer.alloc(4096, 0x5a)]), { mode: 0o600 });

    const again = await importLibrary({ CAPTURE_CODE_CACHE_DIR: dir });
    expect(again.code, again.out).toBe(0);
    const replaced = cacheFiles(dir).get(name)!.bytes;
    expect(replaced.length).toBeGreaterThan(100_000);
    expect(replaced.subarray(header.length, header.length + 64).equals(Buffer.alloc(64, 0x5a))).toBe(false);
  });

  it('is not used in a folder others can write, nor when turned off', async () => {
    const shared = path.join(scratch, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const open = await importLibrary({ CAPTURE_CODE_CACHE_DIR: shared });
    expect(open.code, open.out).toBe(0);
    expect(readdirSync(shared)).toEqual([]);

    // Off: nothing in the default folder, which is under TMPDIR.
    const tmp = path.join(scratch, 'tmp');
    mkdirSync(tmp);
    const off = await importLibrary({ CAPTURE_CODE_CACHE_DIR: 'off', TMPDIR: tmp });
    expect(off.code, off.out).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    // The default folder is the user's own, under TMPDIR.
    expect((await importLibrary({ TMPDIR: tmp })).code).toBe(0);
    expect(readdirSync(tmp)).toEqual([`capture-engine-code-cache-${process.getuid?.()}`]);
  });
});
