import { createRequire } from 'node:module';
import type { RE2 } from 're2-wasm';

/** Longest expression an operator may give: one list is one expression, alternatives joined with `|`. */
export const MAX_URL_LIST_LENGTH = 4096;

/** The operator's URL allow and deny lists (Gotenberg's `--chromium-allow-list` and `--chromium-deny-list`). */
export interface UrlListOptions {
  /** Only URLs this regular expression matches (anywhere in the URL; anchor it with `^`) may load. */
  allow?: string;
  /** URLs this regular expression matches may not load, even when the allow list matches them. */
  deny?: string;
}

export interface UrlLists {
  /** Whether either list is set: without one, nothing is routed to be checked. */
  readonly active: boolean;
  /** Whether the lists refuse `url`. */
  refuses(url: string): boolean;
}

/**
 * Compiles the lists with RE2, whose matching takes time linear in the URL whatever the expression:
 * a list an operator got wrong (nested quantifiers) cannot hang the service on a crafted URL. RE2
 * has no lookahead and no backreferences; an expression it cannot read stops the start, naming
 * the option.
 */
export function compileUrlLists(options: UrlListOptions, names = { allow: 'urlAllowList (CAPTURE_URL_ALLOW_LIST)', deny: 'urlDenyList (CAPTURE_URL_DENY_LIST)' }): UrlLists {
  const allow = compile(options.allow, names.allow);
  const deny = compile(options.deny, names.deny);
  return {
    active: allow !== undefined || deny !== undefined,
    refuses: (url) => (deny?.test(url) ?? false) || (allow !== undefined && !allow.test(url)),
  };
}

function compile(source: string | undefined, name: string): RE2 | undefined {
  if (source === undefined || source === '') return undefined;
  if (source.length > MAX_URL_LIST_LENGTH) throw new Error(`${name}: at most ${MAX_URL_LIST_LENGTH} characters, not ${source.length}`);
  const Re2 = loadRe2();
  try {
    return new Re2(source, 'u');
  } catch (error) {
    throw new Error(`${name}: '${source.slice(0, 100)}' is not a regular expression RE2 reads (no lookahead, no backreferences): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** re2-wasm, loaded with the first list: its WebAssembly memory (about 17 MB) is held for the process's life, and most services set no list. */
function loadRe2(): typeof RE2 {
  return (createRequire(import.meta.url)('re2-wasm') as { RE2: typeof RE2 }).RE2;
}
