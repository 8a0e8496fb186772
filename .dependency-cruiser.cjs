/**
 * Import cycles, type-only ones included: ESLint's import-x/no-cycle skips `import type`, so a
 * cycle of types (which still ties two modules' designs together) would pass it unseen. The
 * layer zones stay in eslint.config.js.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module may reach itself through its imports, type-only imports included (DESIGN.md).',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Keep `import type` in the graph: compiled JavaScript drops it, the design does not.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|test|benchmarks|fixtures)/' },
  },
};
