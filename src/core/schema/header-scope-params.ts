import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import { readJsonText } from './page-option-params.js';

/** Most URL patterns one scope may list: each is matched against every request of the page. */
export const MAX_HEADER_SCOPE_PATTERNS = 20;

const PATTERNS = { minLength: 1, maxLength: 2048 };

/**
 * Where `headers` go when not to the target's origin: Gotenberg's per-header `scope`, as URL
 * patterns (globs) rather than caller regular expressions. One scope for every header, or one per
 * header name. Part of the one request schema.
 */
export const HEADER_SCOPE_PROPERTIES = {
  headers_scope: Type.Optional(
    Type.Union([Type.String(PATTERNS), Type.Record(Type.String({ pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$' }), Type.String(PATTERNS), { minProperties: 1, maxProperties: 20 })], {
      description: `With headers: comma-separated URL patterns (\`*\` is any characters, a pattern matches the whole URL, as block_requests) of the requests that get the headers, instead of the target's origin only, e.g. \`https://api.example.com/*\` (at most ${MAX_HEADER_SCOPE_PATTERNS}). One scope for every header; or a scope per header, an object (or JSON string) from header names to their patterns, e.g. \`{"Authorization": "https://api.example.com/*"}\`: a header it does not name goes to the target's origin only.`,
    }),
  ),
};

type HeaderScope = string | Record<string, string>;

/** The patterns of one scope, in order. */
const patternsOf = (text: string): string[] => text.split(',').map((pattern) => pattern.trim()).filter((pattern) => pattern.length > 0);

/** The patterns of the requests header `name` goes to; undefined when it goes to the target's origin only. */
export function headerScope(scope: HeaderScope | undefined, name: string): string[] | undefined {
  if (scope === undefined) return undefined;
  if (typeof scope === 'string') return patternsOf(scope);
  const named = Object.keys(scope).find((key) => key.toLowerCase() === name.toLowerCase());
  return named === undefined ? undefined : patternsOf(scope[named] as string);
}

export const HEADER_SCOPE_ALLOWED_TEXT = {
  headers_scope: `comma-separated URL patterns with *, at most ${MAX_HEADER_SCOPE_PATTERNS}; or an object (or JSON string) from header names to such patterns`,
};

/** The per-header form in a query or form: a JSON object. The one-scope form never starts with `{`. */
export const HEADER_SCOPE_READERS = {
  headers_scope: (value: unknown): unknown => (typeof value === 'string' && value.trimStart().startsWith('{') ? readJsonText(value) : value),
};

function problemOf(text: string): string | undefined {
  const patterns = patternsOf(text);
  if (patterns.length === 0) return 'no URL pattern';
  return patterns.length > MAX_HEADER_SCOPE_PATTERNS ? `at most ${MAX_HEADER_SCOPE_PATTERNS} patterns, not ${patterns.length}` : undefined;
}

export const HEADER_SCOPE_CHECKS = {
  headers_scope: (scope: HeaderScope): string | undefined => {
    if (typeof scope === 'string') return problemOf(scope);
    for (const [name, text] of Object.entries(scope)) {
      const problem = problemOf(text);
      if (problem !== undefined) return `${name}: ${problem}`;
    }
    return undefined;
  },
};

/** `headers_scope` says where `headers` go: without them it says nothing, and it names only headers given. */
export function checkHeaderScopeCombinations(given: Map<string, unknown>): void {
  if (given.has('headers_scope') && !given.has('headers')) {
    throw new CaptureError('INCOMPATIBLE_PARAMETERS', 'headers_scope says which requests get headers: it needs headers', { details: { params: ['headers_scope', 'headers'] } });
  }
  const scope = given.get('headers_scope') as HeaderScope | undefined;
  if (scope === undefined || typeof scope === 'string') return;
  const names = new Set(Object.keys(given.get('headers') as Record<string, string>).map((name) => name.toLowerCase()));
  const stray = Object.keys(scope).find((name) => !names.has(name.toLowerCase()));
  if (stray !== undefined) {
    throw captureErrors.invalidParameter(`headers_scope.${stray}`, `Invalid parameter 'headers_scope.${stray}': no header '${stray}' in headers to scope`, 'names of headers given in headers');
  }
}
