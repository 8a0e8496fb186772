import { PARAM_NAMES } from '../core/schema/capture-params.js';
import { closestName } from '../core/schema/closest-name.js';
import { captureErrors } from '../core/errors/factories.js';
import type { ParamBag } from './request-body.js';

/**
 * Names a capture request may carry that are not capture parameters: the key, and `strict` itself.
 * (A render link's `key`, `signature` and `expires` are taken out before its parameters are read.)
 */
const HTTP_NAMES = ['api_key', 'strict'];
const KNOWN = new Set<string>([...PARAM_NAMES, ...HTTP_NAMES]);
const CANDIDATES = [...KNOWN];

/** Unknown names a warning spells out, each suggested against every known one; the rest are counted. */
export const MOST_NAMED = 10;
/** Longest unknown name quoted, in characters. */
const LONGEST_NAME = 64;

export interface UnknownParams {
  /** The first MOST_NAMED unknown names, each with the known name closest to it, if one is close. */
  named: { name: string; suggestion?: string }[];
  /** How many unknown names the request had in all. */
  count: number;
}

/**
 * The names of a request that no capture parameter has (issue 50: `viewport_widht=300` gave a
 * 1920-wide image, silently). Bounded: a request of 10,000 names is counted, and only its first
 * ten are compared with the known names.
 */
export function unknownParams(bag: ParamBag): UnknownParams | undefined {
  const named: UnknownParams['named'] = [];
  let count = 0;
  for (const name in bag) {
    if (KNOWN.has(name)) continue;
    if (++count <= MOST_NAMED) named.push({ name, suggestion: closestName(name, CANDIDATES) });
  }
  return count === 0 ? undefined : { named, count };
}

/** One warning per named unknown name, and one for the rest: `warnings` in a JSON answer. */
export function unknownWarnings({ named, count }: UnknownParams): string[] {
  const warnings = named.map(({ name, suggestion }) => `unknown parameter ${quoted(name)} ignored${suggestion === undefined ? '' : ` (did you mean ${quoted(suggestion)}?)`}`);
  if (count > named.length) warnings.push(`${count - named.length} more unknown parameters ignored`);
  return warnings;
}

/** The `Capture-Warning` header: the warnings in printable ASCII, whatever bytes the names held. */
export function warningHeader(unknown: UnknownParams): string {
  return unknownWarnings(unknown).join('; ');
}

/** `strict=true` (or the service's `strictParams`): the first unknown name is a 400 naming it. */
export function refuseUnknown({ named, count }: UnknownParams): never {
  const [{ name, suggestion }] = named as [UnknownParams['named'][number]];
  const more = count > 1 ? ` (and ${count - 1} more unknown)` : '';
  const hint = suggestion === undefined ? '' : ` (did you mean ${quoted(suggestion)}?)`;
  throw captureErrors.invalidParameter(name.slice(0, LONGEST_NAME), `Unknown parameter ${quoted(name)}${hint}${more}: strict=true refuses names that are not capture parameters`, 'the capture parameters of docs/parameters.md', {
    unknown: named.map((each) => each.name.slice(0, LONGEST_NAME)),
    ...(suggestion === undefined ? {} : { suggestion }),
  });
}

/** Whether the request asks for strict reading (`strict`, as a boolean parameter), the service's default otherwise. */
export function isStrict(bag: ParamBag, byDefault: boolean): boolean {
  const value = bag.strict;
  if (value === undefined) return byDefault;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw captureErrors.invalidParameter('strict', "Invalid parameter 'strict': expected true, false", 'true, false');
}

/** A name as a warning quotes it: cut, in double quotes, every character outside printable ASCII escaped. */
function quoted(name: string): string {
  const cut = name.length > LONGEST_NAME ? `${name.slice(0, LONGEST_NAME)}...` : name;
  return JSON.stringify(cut).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
