import { readdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import remapping from '@jridgewell/remapping';
import { build } from 'esbuild';
import { defineConfig } from 'tsup';

/** An empty map: what a bundled dependency's code maps to, so its lines lead to no source. */
const UNMAPPED = { version: 3, sources: [], names: [], mappings: '' } as const;

/**
 * The maps name our own sources, which the package ships (`files`), and those of bundled
 * dependencies (typebox), at a path inside the package where no install puts them: a stack trace
 * through typebox names the bundled file instead.
 */
function dropDependencySources(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js.map')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] };
    if (!map.sources.some((source) => source.includes('/node_modules/'))) continue;
    writeFileSync(file, remapping(map, (source) => (source.includes('/node_modules/') ? UNMAPPED : null)).toString());
  }
}

const plugins = readdirSync('plugins').filter((name) => existsSync(`plugins/${name}/index.ts`));

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/cli.ts',
    // S3-compatible storage: its own entry, so only those who import it load the AWS SDK.
    'src/storage/s3-storage.ts',
    // Asynchronous captures: their own entry, so only those who use them load BullMQ.
    'src/jobs/index.ts',
    // OTLP export for an application without an OpenTelemetry SDK of its own.
    'src/ops/tracing.ts',
    // The typed client: fetch and Web Crypto only, for browsers and edge runtimes too.
    'src/client/index.ts',
    'adapters/express.ts',
    'adapters/fastify.ts',
    'adapters/koa.ts',
    ...plugins.map((name) => `plugins/${name}/index.ts`),
  ],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  outDir: 'dist',
  // typebox is 700 small modules: loaded one by one they cost a cold start about 350 ms, bundled 30.
  noExternal: ['typebox'],
  external: ['express', 'fastify', 'koa', 'ioredis', 'bullmq', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'],
  // Keep the source layout (dist/src, dist/adapters, dist/plugins/<name>) that package.json exports name.
  outExtension: () => ({ js: '.js' }),
  // The playground's page script runs in browsers: bundled on its own, with its style, into
  // dist/playground, which the HTTP service serves as static files.
  onSuccess: async () => {
    dropDependencySources('dist');
    await build({ entryPoints: { playground: 'src/playground/main.ts' }, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outdir: 'dist/playground', logLevel: 'warning' });
    // Worker threads load a file of their own: the Markdown converter, with marked and highlight.js
    // left to node_modules, found by the package's name like the playground's files.
    await build({ entryPoints: { 'markdown-worker': 'src/core/document/markdown-worker.ts' }, bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20', outdir: 'dist/workers', logLevel: 'warning' });
  },
});
