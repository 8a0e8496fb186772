import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded when first asked for, not when the module naming it loads: what an
 * application that imports `capture-engine` for the engine alone never uses (metrics, rate limits,
 * uploads) stays off its start (benchmarks/cold-start). `require` rather than `import()` keeps the
 * callers synchronous.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
