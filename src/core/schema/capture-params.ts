import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import { ALLOWED_TEXT, PAGE_OPTION_CHECKS, PAGE_OPTION_READERS } from './page-option-params.js';
import { applyImpliedDefaults, checkCombinations } from './parameter-rules.js';
import { DOCUMENT_ALLOWED_TEXT, DOCUMENT_CHECKS, DOCUMENT_READERS, hasEntryFile, INPUT_PARAMS, type DocumentFileParam } from './document-params.js';
import { READINESS_ALLOWED_TEXT, READINESS_CHECKS } from './readiness-params.js';
import { BLOCKING_ALLOWED_TEXT, BLOCKING_CHECKS } from './blocking-params.js';
import { ACTION_ALLOWED_TEXT, ACTION_CHECKS, ACTION_READERS } from './action-params.js';
import { OUTPUT_ALLOWED_TEXT, OUTPUT_CHECKS, OUTPUT_READERS } from './output-params.js';
import { SHOT_ALLOWED_TEXT, SHOT_CHECKS, SHOT_READERS } from './shot-params.js';
import { DOWNLOAD_ALLOWED_TEXT, DOWNLOAD_CHECKS, DOWNLOAD_READERS } from './download-params.js';
import { PDF_ALLOWED_TEXT, PDF_CHECKS, PDF_READERS } from './pdf-params.js';
import { HEADER_SCOPE_ALLOWED_TEXT, HEADER_SCOPE_CHECKS, HEADER_SCOPE_READERS } from './header-scope-params.js';
import { INJECTION_ALLOWED_TEXT, INJECTION_CHECKS } from './injection-params.js';
import { INTERCEPT_ALLOWED_TEXT, INTERCEPT_CHECKS, INTERCEPT_READERS } from './intercept-params.js';
import { MEDIA_FEATURE_ALLOWED_TEXT, MEDIA_FEATURE_CHECKS, MEDIA_FEATURE_READERS } from './media-feature-params.js';
import { CaptureParamsSchema, PARAM_NAMES, type CaptureParams } from './capture-schema.js';
import { checkMergeRequest, PDF_MERGE_ALLOWED_TEXT, PDF_MERGE_READERS } from './pdf-merge-params.js';
import { mergeParts } from './merge-parts.js';

export { CaptureParamsSchema, PARAM_NAMES, PDF_PAPER_INCHES, WAIT_UNTIL, type CaptureParams, type CaptureInput } from './capture-schema.js';

interface PropertySchema {
  type?: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
  anyOf?: PropertySchema[];
}

/** Whether a parameter may be an array (`inset`'s `[10, 20]`): else an array is the same name given twice. */
const takesArray = (schema: PropertySchema): boolean => schema.type === 'array' || (schema.anyOf ?? []).some(takesArray);

/** `format=jpeg`, as other screenshot services and MIME types spell it, is `jpg`. */
const readFormat = (value: unknown): unknown => (typeof value === 'string' && value.toLowerCase() === 'jpeg' ? 'jpg' : value);
const READERS: Record<string, ((value: unknown) => unknown) | undefined> = { ...PAGE_OPTION_READERS, ...SHOT_READERS, ...PDF_READERS, ...HEADER_SCOPE_READERS, ...MEDIA_FEATURE_READERS, ...DOWNLOAD_READERS, ...INTERCEPT_READERS, ...DOCUMENT_READERS, ...ACTION_READERS, ...OUTPUT_READERS, ...PDF_MERGE_READERS, format: readFormat };
const CHECKS: Record<string, ((value: never) => string | undefined) | undefined> = { ...PAGE_OPTION_CHECKS, ...SHOT_CHECKS, ...MEDIA_FEATURE_CHECKS, ...DOWNLOAD_CHECKS, ...PDF_CHECKS, ...HEADER_SCOPE_CHECKS, ...INTERCEPT_CHECKS, ...INJECTION_CHECKS, ...DOCUMENT_CHECKS, ...READINESS_CHECKS, ...BLOCKING_CHECKS, ...ACTION_CHECKS, ...OUTPUT_CHECKS };

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)$/;

/** What is allowed for a parameter, in words, straight from the schema. */
export function allowedFor(name: keyof CaptureParams): string {
  const schema = CaptureParamsSchema.properties[name] as PropertySchema;
  if (name === 'url') return 'http or https URL of at most 8192 characters';
  const text = { ...ALLOWED_TEXT, ...SHOT_ALLOWED_TEXT, ...PDF_ALLOWED_TEXT, ...MEDIA_FEATURE_ALLOWED_TEXT, ...DOWNLOAD_ALLOWED_TEXT, ...HEADER_SCOPE_ALLOWED_TEXT, ...INTERCEPT_ALLOWED_TEXT, ...INJECTION_ALLOWED_TEXT, ...DOCUMENT_ALLOWED_TEXT, ...READINESS_ALLOWED_TEXT, ...BLOCKING_ALLOWED_TEXT, ...ACTION_ALLOWED_TEXT, ...OUTPUT_ALLOWED_TEXT, ...PDF_MERGE_ALLOWED_TEXT }[name as string];
  if (text !== undefined) return text;
  if (schema.enum) return schema.enum.join(', ');
  if (schema.type === 'boolean') return 'true, false';
  if (schema.type === 'integer') return `integer ${schema.minimum}..${schema.maximum}`;
  if (schema.type === 'number') return `number ${schema.minimum}..${schema.maximum}`;
  return `string of at most ${schema.maxLength} characters`;
}

function schemaOf(name: keyof CaptureParams): PropertySchema {
  return CaptureParamsSchema.properties[name] as PropertySchema;
}

function invalid(name: keyof CaptureParams, message: string): CaptureError {
  return captureErrors.invalidParameter(name, `Invalid parameter '${name}': ${message}`, allowedFor(name));
}

/** Turns a query/form string (or a JSON value) into the type the schema wants; undefined when it cannot. */
function coerce(schema: PropertySchema, value: unknown): unknown {
  if (schema.type === 'boolean') {
    if (value === true || value === 'true' || value === '1' || value === 1) return true;
    if (value === false || value === 'false' || value === '0' || value === 0) return false;
    return undefined;
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
    if (typeof value !== 'string') return undefined;
    const pattern = schema.type === 'integer' ? INTEGER : NUMBER;
    return pattern.test(value) ? Number(value) : undefined;
  }
  if (typeof value === 'string') return value;
  return undefined;
}

/**
 * Reads one raw parameter bag (query string, form or JSON body) into typed, defaulted parameters.
 * Unknown names are ignored; a parameter given twice is refused, as its meaning would be a guess.
 */
export function parseCaptureParams(raw: Readonly<Record<string, unknown>>): CaptureParams {
  const given = new Map<keyof CaptureParams, unknown>();
  for (const name of PARAM_NAMES) {
    if (!Object.hasOwn(raw, name)) continue;
    let value = raw[name];
    if (name === 'hide_selectors' && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      value = value.join(',');
    }
    if (Array.isArray(value) && !takesArray(schemaOf(name))) throw invalid(name, 'given more than once');
    if (value === undefined || value === null) continue;
    const schema = CaptureParamsSchema.properties[name] as TSchema & PropertySchema;
    const reader = READERS[name];
    const typed = reader ? reader(value) : coerce(schema, value);
    if (typed === undefined || !Value.Check(schema, typed)) {
      throw (typed !== null && typeof typed === 'object' && invalidPart(name, schema, typed)) || invalid(name, `expected ${allowedFor(name)}, got ${describe(value)}`);
    }
    const problem = CHECKS[name]?.(typed as never);
    if (problem !== undefined) throw invalid(name, problem);
    given.set(name, typed);
  }

  const inputs = INPUT_PARAMS.filter((name) => given.has(name) && given.get(name) !== '');
  if (given.has('pdf_merge')) checkMergeRequest(given, inputs);
  // Downloads alone are files too: their own rules say what they need.
  else if (inputs.length !== 1 && !(inputs.length === 0 && given.has('download_from'))) {
    const name = inputs[1] ?? 'url';
    const problem = inputs.length === 0 ? 'missing' : `give one of url, html, markdown or files, not both ${inputs[0]} and ${name}`;
    throw captureErrors.invalidParameter(name, `Invalid parameter '${name}': ${problem}`, 'exactly one of url, html, markdown or files');
  } else if (given.has('files') && !hasEntryFile(given.get('files') as DocumentFileParam[])) throw invalid('files', 'an index.html or index.md is needed');
  applyImpliedDefaults(given);
  checkCombinations(given, invalid);

  const params = Object.create(null) as Record<string, unknown>;
  for (const name of PARAM_NAMES) {
    const value = given.has(name) ? given.get(name) : (CaptureParamsSchema.properties[name] as PropertySchema).default;
    if (value !== undefined) params[name] = value;
  }
  const parsed = Object.freeze({ ...params }) as CaptureParams;
  // Each part read as a request of its own: refused now, before any browser work.
  if (parsed.pdf_merge !== undefined) mergeParts(parsed, parseCaptureParams);
  validated.add(parsed);
  return parsed;
}

/** Results of `parseCaptureParams`: frozen, so they are still valid when handed on. */
const validated = new WeakSet<object>();

/** Whether `value` came out of `parseCaptureParams` (the engine then skips parsing it again). */
export function isValidatedParams(value: object): value is CaptureParams {
  return validated.has(value);
}

/**
 * The first wrong part of an array or object parameter, named by its path (`cookies[0].sameSite`),
 * with what that part allows; undefined when the parameter's shape itself is wrong.
 */
function invalidPart(name: keyof CaptureParams, schema: TSchema, value: object): CaptureError | undefined {
  const [first] = Value.Errors(schema, value);
  const steps = first?.instancePath.split('/').slice(1) ?? [];
  if (first === undefined || steps.length === 0) return undefined;
  const path = name + steps.map((step) => (/^\d+$/.test(step) ? `[${step}]` : `.${step}`)).join('');
  const part = steps.reduce<unknown>((node, step) => (node as Record<string, unknown> | undefined)?.[step], value);
  const allowedValues = (first.params as { allowedValues?: unknown[] }).allowedValues?.join(', ');
  const problem = allowedValues ? `expected ${allowedValues}` : first.message;
  return captureErrors.invalidParameter(path, `Invalid parameter '${path}': ${problem}, got ${describe(part)}`, allowedValues ?? allowedFor(name));
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' ? typeof value : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The request schema as plain JSON Schema (draft 2020-12 compatible), for clients and docs. */
export function captureParamsJsonSchema(): Record<string, unknown> {
  // pdf_merge is the whole document, its uploads the files its parts name.
  const oneInput = [...INPUT_PARAMS.map((name) => (name === 'files' ? { required: [name], not: { required: ['pdf_merge'] } } : { required: [name] })), { required: ['pdf_merge'] }];
  return JSON.parse(JSON.stringify({ ...CaptureParamsSchema, oneOf: oneInput })) as Record<string, unknown>;
}
