import { readdirSync, existsSync } from 'node:fs';
import { build } from 'esbuild';
import { defineConfig } from 'tsup';

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
    await build({ entryPoints: { playground: 'src/playground/main.ts' }, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outdir: 'dist/playground', logLevel: 'warning' });
    // Worker threads load a file of their own: the Markdown converter, with marked and highlight.js
    // left to node_modules, found by the package's name like the playground's files.
    await build({ entryPoints: { 'markdown-worker': 'src/core/document/markdown-worker.ts' }, bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20', outdir: 'dist/workers', logLevel: 'warning' });
  },
});
