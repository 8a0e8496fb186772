import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/**
 * The layers and what each may not import (DESIGN.md): dependencies flow one way, from the edges
 * (CLI, adapters, HTTP service) through the composition root to the core, which imports none of them.
 * Cycles, type-only ones included, are dependency-cruiser's to find (.dependency-cruiser.cjs):
 * import-x/no-cycle skips `import type`.
 */
const LAYERS = {
  core: './src/core',
  browser: './src/browser',
  egress: './src/egress',
  storage: './src/storage',
  access: './src/access',
  http: './src/http',
  ops: './src/ops',
  jobs: './src/jobs',
  client: './src/client',
  playground: './src/playground',
  cli: ['./src/cli', './src/cli.ts'],
  root: ['./src/index.ts', './src/create-capture-engine.ts', './src/capture-engine-options.ts'],
  plugins: './plugins',
  adapters: './adapters',
};
const ALL = Object.keys(LAYERS);
const forbid = (target, from, message) => ({ target: LAYERS[target], from: from.flatMap((name) => LAYERS[name]), message });
/** Every layer but `target` and those it may import. */
const onlyImports = (target, allowed, message) => forbid(target, ALL.filter((name) => name !== target && !allowed.includes(name)), message);
/** Of layer `from`, `target` may import the named files only (paths relative to the layer's folder). */
const onlyFiles = (target, from, files, message) => ({ target: LAYERS[target], from: LAYERS[from], except: files, message });
/**
 * The only paths across the layers that are not the arrows above, each named (docs/development.md, "Layout"):
 * the port between the HTTP service and the job queue, the observer port of operations, and what
 * the browser-side client takes (types and the pure link helpers).
 */
const crossings = [
  onlyFiles('jobs', 'http', ['./async-captures-port.ts'], "jobs speak the HTTP service's queue port (src/http/async-captures-port.ts) and nothing else of it"),
  onlyFiles('ops', 'http', ['./http-observer.ts'], "operations observe the HTTP service through its observer port (src/http/http-observer.ts) only"),
  onlyFiles('client', 'http', ['./async-captures-port.ts', './render-link-query.ts'], 'the client takes the status types and the render-link query of the HTTP service only'),
  onlyFiles('client', 'access', ['./link-canonical.ts'], 'the client takes the canonical link form of access control only'),
  onlyFiles('client', 'core', ['./schema/capture-schema.ts', './page-content.ts'], 'the client takes the request schema\'s types and the content formats\' answers of the core only'),
];
const zones = [
  onlyImports('core', [], 'the core knows its edges only by the interfaces in src/core/ports.ts'),
  onlyImports('browser', ['core'], 'the browser layer depends on the core only'),
  onlyImports('egress', ['core'], 'the egress layer depends on the core only'),
  onlyImports('storage', ['core'], 'storage depends on the core only'),
  onlyImports('access', ['core'], 'access control (keys, tiers, policy, limiter stores) depends on the core only'),
  onlyImports('http', ['core', 'access'], 'the HTTP service depends on the core and access control; storage and jobs reach it through ports'),
  onlyImports('ops', ['core', 'http'], 'operations (metrics, health) observe the core and the HTTP service through their ports'),
  onlyImports('jobs', ['core', 'egress', 'access', 'http'], "jobs run captures on an engine and speak the HTTP service's queue port; they need no concrete edge"),
  onlyImports('plugins', ['core'], 'plugins use the core and nothing else'),
  onlyImports('client', ['core', 'access', 'http'], 'the client runs in browsers: it takes types and the pure link helpers, nothing that captures or serves'),
  onlyImports('playground', ['client'], 'the playground page runs in browsers: it speaks to the service through the typed client'),
  onlyImports('adapters', ['http'], 'adapters take the HTTP service (src/http) only'),
  forbid('root', ['cli'], 'the composition root is what the CLI builds on, never the other way round'),
  forbid('cli', ['browser', 'egress', 'plugins'], 'the CLI builds engines through the composition root (src/create-capture-engine.ts), not from their parts'),
  ...crossings,
];

export default tseslint.config(
  { ignores: ['dist/', '**/node_modules/', 'coverage/', 'test/.artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // TypeScript checks names itself; page-side callbacks use DOM names Node does not have.
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  { files: ['fixtures/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['src/playground/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  {
    files: ['src/**/*.ts', 'plugins/**/*.ts', 'adapters/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Sources import each other as `./x.js`, which TypeScript maps to `./x.ts`.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
      // A file a reader takes in at once (issue 48): past this, it does several jobs.
      'max-lines': ['error', { max: 250 }],
    },
  },
);
