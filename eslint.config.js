import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/**
 * The layers and what each may not import (DESIGN.md): dependencies flow one way, from the edges
 * (CLI, adapters, HTTP service) through the composition root to the core, which imports none of them.
 */
const LAYERS = {
  core: './src/core',
  browser: './src/browser',
  egress: './src/egress',
  storage: './src/storage',
  http: './src/http',
  ops: './src/ops',
  jobs: './src/jobs',
  cli: ['./src/cli', './src/cli.ts'],
  root: ['./src/index.ts', './src/create-capture-engine.ts', './src/engine-options.ts'],
  plugins: './plugins',
  adapters: './adapters',
};
const forbid = (target, from, message) => ({ target: LAYERS[target], from: from.flatMap((name) => LAYERS[name]), message });
const zones = [
  forbid('core', ['browser', 'egress', 'storage', 'http', 'ops', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'the core knows its edges only by the interfaces in src/core/ports.ts'),
  forbid('browser', ['egress', 'storage', 'http', 'ops', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'the browser layer depends on the core only'),
  forbid('egress', ['browser', 'storage', 'http', 'ops', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'the egress layer depends on the core only'),
  forbid('storage', ['browser', 'egress', 'http', 'ops', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'storage depends on the core only'),
  forbid('http', ['browser', 'egress', 'storage', 'ops', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'the HTTP service depends on the core only'),
  forbid('ops', ['browser', 'egress', 'storage', 'cli', 'root', 'plugins', 'adapters', 'jobs'], 'operations (metrics, health) observe the core and the HTTP service through their ports'),
  forbid('jobs', ['browser', 'storage', 'ops', 'cli', 'root', 'plugins', 'adapters'], 'jobs run captures on an engine and speak the HTTP service\'s queue port; they need no concrete edge'),
  forbid('plugins', ['browser', 'egress', 'storage', 'http', 'ops', 'cli', 'root', 'adapters', 'jobs'], 'plugins use the core and nothing else'),
  forbid('adapters', ['core', 'browser', 'egress', 'storage', 'ops', 'cli', 'root', 'plugins', 'jobs'], 'adapters take the HTTP service (src/http) only'),
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
  { files: ['test/fixtures/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
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
    },
  },
);
