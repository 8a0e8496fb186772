import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';

/** Most URL patterns one scope may list: each is matched against every request of the page. */
export const MAX_HEADER_SCOPE_PATTERNS = 20;

/**
 * Where `headers` go when not to the target's origin: Gotenberg's per-header `scope`, as URL
 * patterns (globs) rather than caller regular expressions. Part of the one request schema.
 */
export const HEADER_SCOPE_PROPERTIES = {
  headers_scope: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: `With headers: comma-separated URL patterns (\`*\` is any characters, a pattern matches the whole URL, as block_requests) of the requests that get the headers, instead of the target's origin only, e.g. \`https://api.example.com/*\` (at most ${MAX_HEADER_SCOPE_PATTERNS}). One scope for every header.`,
    }),
  ),
};

/** The patterns of `headers_scope`, in order; undefined when none was given. */
export function headerScope(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text.split(',').map((pattern) => pattern.trim()).filter((pattern) => pattern.length > 0);
}

export const HEADER_SCOPE_ALLOWED_TEXT = { headers_scope: `comma-separated URL patterns with *, at most ${MAX_HEADER_SCOPE_PATTERNS}` };

export const HEADER_SCOPE_CHECKS = {
  headers_scope: (text: string): string | undefined => {
    const patterns = headerScope(text) ?? [];
    if (patterns.length === 0) return 'no URL pattern';
    return patterns.length > MAX_HEADER_SCOPE_PATTERNS ? `at most ${MAX_HEADER_SCOPE_PATTERNS} patterns, not ${patterns.length}` : undefined;
  },
};

/** `headers_scope` says where `headers` go: without them it says nothing. */
export function checkHeaderScopeCombinations(given: Map<string, unknown>): void {
  if (given.has('headers_scope') && !given.has('headers')) {
    throw new CaptureError('INCOMPATIBLE_PARAMETERS', 'headers_scope says which requests get headers: it needs headers', { details: { params: ['headers_scope', 'headers'] } });
  }
}
