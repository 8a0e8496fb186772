import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/** The parts of Node's CommonJS loader this module takes over for a while; they are not in Node's types. */
interface LoaderModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string, format?: string): unknown;
}
interface Loader {
  prototype: LoaderModule;
  wrap(content: string): string;
}
const loader = Module as unknown as Loader;

/** Node's own compile cache, from Node 22.1 (flushCompileCache from 22.10); the project's types are Node 20's. */
interface CompileCache {
  enableCompileCache?(dir: string): unknown;
  flushCompileCache?(): void;
}
const compileCache = Module as unknown as CompileCache;

/** Smaller files compile in less time than reading their cache takes. */
const MIN_CACHED_CHARS = 64 * 1024;

/** A server never exits to write its cache; by then it has launched its browser and usually captured. */
const WRITE_AFTER_MS = 10_000;

interface PendingWrite {
  file: string;
  stamp: string;
  script: vm.Script;
}
const pendingWrites: PendingWrite[] = [];

/**
 * Where the code cache lives, or undefined when it is off (`CAPTURE_CODE_CACHE_DIR=off`) or the
 * folder is not this user's alone: a cache is checked against its source by length (V8, Node 20's
 * path) or a checksum (Node's own cache), never by its text, so a cache someone else can write
 * could run their code in ours.
 */
function cacheDir(): string | undefined {
  const setting = process.env.CAPTURE_CODE_CACHE_DIR;
  if (setting === 'off') return undefined;
  const dir = setting || path.join(os.tmpdir(), `capture-engine-code-cache-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { uid, mode } = statSync(dir);
    const uidNow = process.getuid?.();
    if ((uidNow !== undefined && uid !== uidNow) || (mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** What a cache file must have been made for: this Node, and the source file as it is now. */
function stampOf(filename: string, content: string): string {
  const { size, mtimeMs } = statSync(filename);
  return `${process.version} ${process.arch} ${size} ${mtimeMs} ${content.length}`;
}

function readCache(file: string, stamp: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    const end = bytes.indexOf(10);
    return end > 0 && bytes.subarray(0, end).toString() === stamp ? bytes.subarray(end + 1) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Written at exit (or after WRITE_AFTER_MS) rather than at once: the cache then also holds the
 * functions compiled since the file loaded (those of the browser's launch and of the first
 * capture), so the next start compiles none of them either.
 */
function writePendingCaches(): void {
  for (const { file, stamp, script } of pendingWrites.splice(0)) {
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, Buffer.concat([Buffer.from(`${stamp}\n`), script.createCachedData()]), { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // A cache that cannot be written is only a slower next start.
    }
  }
}

/** What Node's own loader does with a CommonJS file, with the compiled code read from and kept in `dir`. */
function compileWithCache(module: LoaderModule, content: string, filename: string, dir: string): unknown {
  // One file per source file: V8 refuses one made under other V8 flags (a heap size, a profiler), and it is then made again.
  const file = path.join(dir, `${createHash('sha1').update(filename).digest('hex')}.bin`);
  const stamp = stampOf(filename, content);
  const cachedData = readCache(file, stamp);
  const script = new vm.Script(loader.wrap(content), {
    filename,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected) {
    if (!pendingWrites.length) {
      process.once('exit', writePendingCaches);
      setTimeout(writePendingCaches, WRITE_AFTER_MS).unref();
    }
    pendingWrites.push({ file, stamp, script });
  }
  // Resolving from the file's own path is what the module's require does; loading through the module keeps its children.
  const own = createRequire(filename);
  const require = Object.assign((id: string) => module.require(id), { resolve: own.resolve, cache: own.cache, main: own.main, extensions: own.extensions });
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  return wrapper.call(module.exports, module.exports, require, module, filename, path.dirname(filename));
}

/**
 * Node 22.1+ keeps compiled code on disk itself, in a folder per Node version under `dir`, for
 * every module loaded from here on (the application's own later ones too). It writes at exit;
 * the flush writes what a server that never exits has compiled by then, as the Node 20 path does.
 */
function enableNodeCompileCache(dir: string): void {
  compileCache.enableCompileCache?.(dir);
  if (compileCache.flushCompileCache) setTimeout(() => compileCache.flushCompileCache?.(), WRITE_AFTER_MS).unref();
}

/**
 * `require(specifier)` from the module at `parentUrl`, with V8's compiled code of its large
 * CommonJS files kept on disk between starts. playwright-core is two bundles of 3.5 MB each whose
 * compilation took about 140 ms of every cold start (benchmarks/results/cold-start.md). From Node
 * 22.1 that is Node's `module.enableCompileCache`; Node 20 has none, so there Node's loader is taken
 * over while this require runs (the application's own modules load as they always do).
 */
export function requireWithCodeCache<T>(specifier: string, parentUrl: string): T {
  const require = createRequire(parentUrl);
  if (compileCache.enableCompileCache) {
    const dir = cacheDir();
    if (dir) enableNodeCompileCache(dir);
    return require(specifier) as T;
  }
  const dir = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? cacheDir() : undefined;
  if (!dir) return require(specifier) as T;
  const compile = loader.prototype._compile;
  loader.prototype._compile = function (this: LoaderModule, content: string, filename: string, format?: string) {
    if ((format !== undefined && format !== 'commonjs') || content.length < MIN_CACHED_CHARS) return compile.call(this, content, filename, format);
    return compileWithCache(this, content, filename, dir);
  };
  try {
    return require(specifier) as T;
  } finally {
    loader.prototype._compile = compile;
  }
}
