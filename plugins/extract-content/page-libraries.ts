import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let source: string | undefined;

/**
 * An expression that loads Mozilla's Readability, turndown and turndown's GFM plugin in the page
 * and evaluates to `{ Readability, TurndownService, turndownPluginGfm }`, leaving the page's
 * globals alone: their CommonJS and UMD builds write to the `module` and `exports` given them.
 * Read from the packages once, on the first Markdown or HTML asked for.
 */
export function pageLibraries(): string {
  // Each in a function of its own: their top-level names (Readability's `function Readability`) stay apart.
  const load = (file: string): string => `(() => { const module = { exports: {} }; const exports = module.exports;\n${readFileSync(require.resolve(file), 'utf8')}\nreturn module.exports; })()`;
  source ??= [
    '({',
    `Readability: ${load('@mozilla/readability/Readability.js')},`,
    `TurndownService: ${load('turndown/lib/turndown.browser.umd.js')},`,
    `turndownPluginGfm: ${load('turndown-plugin-gfm/lib/turndown-plugin-gfm.browser.cjs.js')},`,
    '})',
  ].join('\n');
  return source;
}
