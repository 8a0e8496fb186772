import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', '**/node_modules/', 'coverage/'] },
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
);
