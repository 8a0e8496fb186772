import { Agent, STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  captureParamsJsonSchema,
  createCaptureHttp,
  ERROR_CATALOGUE,
  operatorLinkCredentials,
  parseCaptureParams,
  renderLink,
  type CaptureEngine,
  type ErrorCode,
} from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../helpers/adapters.js';
import { closedPort } from '../helpers/ports.js';
import { rawRequest, type RawAnswer, type RawRequest } from '../helpers/raw-http.js';

/**
 * Issue 47: requests generated from the exported JSON Schema of the request schema, then mutated
 * (wrong types, boundaries, huge and unicode values, repeated, unknown and prototype names, odd
 * content types, truncated multipart, deep and broken JSON, bad percent-encoding), sent over real
 * HTTP to the service on every adapter. Whatever comes in: never a 5xx, never a hang, every error
 * JSON with a code of the catalogue, and an INVALID_PARAMETER names what was sent (or what is missing).
 *
 * No generated request captures anything: every target is a closed port on 127.0.0.1 (or a name
 * resolving there) and private networks are not allowed, so a request that gets through every check
 * ends as 403 URL_NOT_ALLOWED before a browser is asked; documents (html, markdown, files), which
 * need no target, are only ever sent beside a url or invalid (checked with the parser itself).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 47);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
/** Longest any answer may take; every answer here is a refusal that needs no browser. */
const BUDGET_MS = 5000;
/** FUZZ_COLLECT=1: go through every run and print every violation instead of stopping at the first. */
const COLLECT = process.env.FUZZ_COLLECT === '1';

const KEYS = { enterprise: 'ce_fuzz_4f1c9a7be2d05386a1f7c4e9b2d8a6f03e5c71b9d4a2', free: 'ce_fuzz_9b3e7d1a5c8f02e6b4d9a7c1f3e5b8d0a2c6e4f7b1d3' };
const UNLIMITED = { requestsPerMinute: 10_000_000, monthlyQuota: 10_000_000 };
const BODY_LIMIT = 64 * 1024;
/** Upload limits small enough that a run reaches each of them cheaply. */
const UPLOADS = { fileBytes: 16 * 1024, totalBytes: 64 * 1024, files: 3 };
/** Node's HTTP parser refuses a head over 16 KiB (431) before any adapter sees it: not ours to test. */
const LONGEST_PATH = 8000;

interface PropSchema {
  type?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: PropSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, PropSchema>;
  required?: string[];
  patternProperties?: Record<string, PropSchema>;
  maxProperties?: number;
  examples?: unknown[];
}

/** The request schema as the service publishes it: names, types and ranges all come from here. */
const SCHEMA = captureParamsJsonSchema() as { properties: Record<string, PropSchema> };
const PARAMS = Object.keys(SCHEMA.properties);
const DOCUMENT_INPUTS = ['html', 'markdown', 'files'];
const CODES = new Set(Object.keys(ERROR_CATALOGUE));

let engine: CaptureEngine;
let port: number;
const apps = new Map<AdapterName, RunningApp>();
const agents = new Map<AdapterName, Agent>();
const tried = new Map<AdapterName, number>(ADAPTERS.map((adapter) => [adapter, 0]));
const collected: string[] = [];
/** The request sent before, per adapter: a broken answer may be the previous one's leftovers on a kept-alive connection. */
const previous = new Map<AdapterName, string>();
/** How the node adapter answered, by route, status, code and the parameter named: what the run reached. */
const outcomes = new Map<string, number>();

beforeAll(async () => {
  port = await closedPort();
  // Every name resolves to loopback, which is not allowed: nothing here reaches a network.
  engine = await createTestEngine({ allowPrivateNetworks: false, resolver: async () => ['127.0.0.1'] });
  const file = Buffer.alloc(100, 7);
  await engine.storage?.put(STORED, { data: file }, { contentType: 'image/png', size: file.length });
  for (const adapter of ADAPTERS) {
    const http = createCaptureHttp(engine, {
      apiKeys: [
        { key: KEYS.enterprise, tier: 'ENTERPRISE' },
        { key: KEYS.free, tier: 'FREE' },
      ],
      tiers: { FREE: UNLIMITED, BASIC: UNLIMITED, PRO: UNLIMITED, ENTERPRISE: UNLIMITED },
      linkLimits: { perLink: UNLIMITED.requestsPerMinute, perAddress: UNLIMITED.requestsPerMinute },
      uploadLimits: UPLOADS,
      playground: true,
    });
    apps.set(adapter, await startApp(adapter, http));
    // One kept-alive connection per app: a body left unread would garble the next answer on it.
    agents.set(adapter, new Agent({ keepAlive: true, maxSockets: 1 }));
  }
});
afterAll(async () => {
  for (const agent of agents.values()) agent.destroy();
  for (const app of apps.values()) await app.close();
  await engine?.close();
  if (collected.length > 0) console.log(`violations (${collected.length}):\n${collected.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------
// Values, from the schema

const UNICODE = ['\u0000', '\ud800', '\udfff', '😀', 'e\u0301', '\u202e', '\ufeff', 'Ω', '\u2028', '𝕦𝕣𝕝', '\uffff', 'İ', '٣', '\r\n'];

/** A target that passes every check but the last: loopback is not allowed here. */
const target = fc
  .tuple(fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom('127.0.0.1', 'localhost', 'fuzz.example', 'xn--bcher-kva.example', '[::1]', '2130706433'), fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
  .map(([scheme, host, path, query]) => `${scheme}://${host}:${port}${path}${query === undefined ? '' : `?${query}`}`);

/** A value the schema allows for `schema` (its semantic checks may still refuse it: a device, a zone). */
function valid(name: string, schema: PropSchema): fc.Arbitrary<unknown> {
  if (name === 'url') return target;
  if (schema.examples !== undefined && schema.examples.length > 0) return fc.constantFrom(...schema.examples);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const [min, max] = [schema.minimum ?? -1e6, schema.maximum ?? 1e6];
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
    }
    case 'number': {
      const [min, max] = [schema.minimum ?? -1e6, schema.maximum ?? 1e6];
      return fc.oneof(fc.constantFrom(min, max), fc.double({ min, max, noNaN: true }));
    }
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 40, 40);
      if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= (schema.maxLength ?? Infinity));
      return fc.string({ minLength: min, maxLength: Math.max(min, max) });
    }
    case 'array':
      return fc.array(valid('', schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      if (schema.properties !== undefined) {
        const parts = Object.fromEntries(Object.entries(schema.properties).map(([key, part]) => [key, valid(key, part)]));
        return fc.record(parts, { requiredKeys: (schema.required ?? []) as never[] });
      }
      const [pattern, part] = Object.entries(schema.patternProperties ?? { '^[a-z]{1,10}$': {} })[0] as [string, PropSchema];
      return fc.dictionary(fc.stringMatching(new RegExp(pattern)), valid('', part), { maxKeys: 3 });
    }
    default:
      return fc.string();
  }
}

/** A value of the wrong type or shape for `schema`, as JSON would carry it. */
function wrongType(schema: PropSchema): fc.Arbitrary<unknown> {
  const any: unknown[] = [1, 1.5, -1, true, false, [], ['a', 'b'], {}, { a: 1 }, '', ' ', 'abc', 'null', '{}', '[]'];
  if (schema.enum !== undefined) return fc.constantFrom(...any, ...schema.enum.map((value) => String(value).toUpperCase()), ...schema.enum.map((value) => ` ${String(value)}`), `${String(schema.enum[0])}\u0000`);
  switch (schema.type) {
    case 'boolean':
      return fc.constantFrom('True', 'yes', 'on', 2, -1, '', 'truefalse', [true], {}, 'null');
    case 'integer':
      return fc.constantFrom('abc', 1.5, '1.5', '1e3', ' 90', '90 ', '0x10', '+5', '٣', '', true, [1], {}, '1_000', '١٢٣', { raw: '1e400' }, '1e400', '-0x1');
    case 'number':
      return fc.constantFrom('abc', 'NaN', 'Infinity', '-Infinity', '1e400', '1,5', '--1', '.', '', true, [1], {}, '1e5', '0x10');
    case 'string':
      return fc.constantFrom(1, 0, true, false, [], ['a', 'b'], {}, { a: 'b' }, [{}]);
    case 'array':
      return fc.constantFrom('x', 1, true, {}, [1], [null], [[]], [''], 'a=1; b', '[{}]', [{ name: 1 }]);
    case 'object':
      return fc.constantFrom('x', 1, true, [], '{', '[]', '"x"', { Host: 'x' }, { 'bad name': 'x' }, { a: 1 }, { a: { b: 'c' } }, '{"Cookie":"a=b"}');
    default:
      return fc.constantFrom(...any);
  }
}

/** A value just outside what `schema` allows: one past a bound, a fraction, one character too many. */
function outOfRange(schema: PropSchema): fc.Arbitrary<unknown> {
  const options: unknown[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    const [min, max] = [schema.minimum ?? 0, schema.maximum ?? 0];
    options.push(min - 1, max + 1, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 1e308, -1e308, '9'.repeat(40), `-${'9'.repeat(40)}`);
    if (schema.type === 'integer') options.push(min + 0.5, max - 0.5, `${max}.0`, `${min}.5`);
    else options.push(min - 1e-9, max + 1e-9, max * 10);
  }
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined && schema.maxLength <= 40_000) options.push('a'.repeat(schema.maxLength + 1));
    if ((schema.minLength ?? 0) > 0) options.push('a'.repeat((schema.minLength ?? 1) - 1));
    if (schema.pattern !== undefined) options.push('x y', '1'.repeat(13), '-1', '1,', '\u0000');
  }
  if (schema.type === 'array') {
    options.push([]);
    if (schema.maxItems !== undefined && schema.maxItems <= 100) options.push(Array.from({ length: schema.maxItems + 1 }, (_, index) => ({ name: `n${index}`, value: 'v', action: 'wait', ms: 1 })));
  }
  if (schema.type === 'object' && schema.maxProperties !== undefined) {
    options.push(Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, index) => [`X-H${index}`, 'v'])));
  }
  if (schema.enum !== undefined) options.push(`${String(schema.enum[0])}x`, String(schema.enum[0]).slice(1));
  return options.length === 0 ? wrongType(schema) : fc.constantFrom(...options);
}

/** The same value with odd characters in it: NUL, lone surrogates, emoji, bidi, combining marks. */
const unicodeOf = (value: unknown): fc.Arbitrary<unknown> =>
  fc.tuple(fc.constantFrom(...UNICODE), fc.constantFrom('prefix', 'suffix', 'replace')).map(([odd, where]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return where === 'prefix' ? odd + text : where === 'suffix' ? text + odd : odd;
  });

/** Deeply nested JSON, written out (a recursive stringify of 10,000 levels is what must not run here). */
const deep = fc.tuple(fc.constantFrom(100, 1000, 10_000), fc.constantFrom('[', '{"a":')).map(([depth, open]) => ({ raw: open.repeat(depth) + (open === '[' ? ']' : '1}').repeat(depth) }));
type Raw = { raw: string };
const isRaw = (value: unknown): value is Raw => typeof value === 'object' && value !== null && typeof (value as Raw).raw === 'string';

const UNKNOWN_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'URL', 'Url', 'FORMAT', 'url[]', 'url[0]', 'a.b', '', ' ', 'url ', '\u0000', '😀', 'x'.repeat(300), 'api_key ', 'files[]'];

// ---------------------------------------------------------------------------------------------
// Requests

type Carrier = 'query' | 'json' | 'form' | 'multipart';
type Pair = [string, unknown];

/** One mutation of a capture request's parameters. */
type Mutation =
  | { kind: 'wrong' | 'range' | 'unicode' | 'huge'; name: string; value: unknown }
  | { kind: 'repeat'; name: string; value: unknown }
  | { kind: 'unknown'; name: string; value: unknown }
  | { kind: 'drop-url' }
  | { kind: 'upper-url' }
  | { kind: 'document'; name: string; value: unknown }
  | { kind: 'deep'; name: string; value: Raw }
  | { kind: 'bad-escape'; at: number; escape: string };

const paramName = fc.constantFrom(...PARAMS);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  paramName.chain((name) => wrongType(SCHEMA.properties[name] as PropSchema).map((value) => ({ kind: 'wrong' as const, name, value }))),
  paramName.chain((name) => outOfRange(SCHEMA.properties[name] as PropSchema).map((value) => ({ kind: 'range' as const, name, value }))),
  paramName.chain((name) => valid(name, SCHEMA.properties[name] as PropSchema).chain(unicodeOf).map((value) => ({ kind: 'unicode' as const, name, value }))),
  fc.tuple(paramName, fc.constantFrom(5_000, 60_000, 70_000)).map(([name, length]) => ({ kind: 'huge' as const, name, value: 'h'.repeat(length) })),
  paramName.chain((name) => valid(name, SCHEMA.properties[name] as PropSchema).map((value) => ({ kind: 'repeat' as const, name, value }))),
  fc.tuple(fc.oneof(fc.constantFrom(...UNKNOWN_NAMES), fc.string({ maxLength: 12 })), fc.oneof(fc.string(), fc.constantFrom<unknown>({ polluted: true }, ['x'], 1, null))).map(([name, value]) => ({ kind: 'unknown' as const, name, value })),
  fc.constant({ kind: 'drop-url' as const }),
  fc.constant({ kind: 'upper-url' as const }),
  fc.constantFrom(...DOCUMENT_INPUTS, 'markdown_template').chain((name) =>
    fc.oneof(valid(name, SCHEMA.properties[name] as PropSchema), wrongType(SCHEMA.properties[name] as PropSchema), fc.constant('')).map((value) => ({ kind: 'document' as const, name, value })),
  ),
  fc.tuple(fc.constantFrom(...PARAMS, 'zz_unknown'), deep).map(([name, value]) => ({ kind: 'deep' as const, name, value })),
  fc.tuple(fc.nat(), fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%80', '%ED%A0%80', '%FF', '%%', '%0', '%u0041', '%2')).map(([at, escape]) => ({ kind: 'bad-escape' as const, at, escape })),
);

/** Where the API key travels, or how it is wrong. */
const keyPlacement = fc.oneof({ weight: 12, arbitrary: fc.constant('header') }, { weight: 5, arbitrary: fc.constantFrom('query', 'body', 'none', 'wrong', 'two', 'huge', 'free') });
const contentTypes: Record<Carrier, readonly string[]> = {
  query: [],
  json: ['application/json', 'application/json; charset=utf-8', 'application/JSON', 'application/vnd.api+json', 'application/json; charset=latin1', 'application/json;;;'],
  form: ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8'],
  multipart: ['multipart/form-data'],
};
const ODD_CONTENT_TYPES = ['', 'text/plain', '*/*', 'application/xml', 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=b', 'application/octet-stream', ';', 'application/json, text/plain', 'x'.repeat(300), 'application/x-www-form-urlencoded; charset=utf-16'];

interface CaptureCase {
  route: 'capture';
  method: string;
  carrier: Carrier;
  base: Pair[];
  mutations: Mutation[];
  key: string;
  /** Undefined: the carrier's own type. '' sends none. */
  contentType: string | undefined;
  /** Two Content-Type headers. */
  twoContentTypes: boolean;
  body: 'as-built' | 'invalid-json' | 'non-object' | 'deep' | 'bom' | 'bad-utf8' | 'over-limit' | 'empty' | 'chunked';
  nonObject: string;
  multipart: { truncateAt: number | undefined; noEnd: boolean; wrongBoundary: boolean; files: number; fileBytes: number; noDisposition: boolean; manyFields: boolean };
  idempotencyKey: string | undefined;
  /** Something more about the request as a whole. */
  extra: 'none' | 'repeated-key-header' | 'empty-key-header' | 'expect-continue' | 'many-names';
  cut: number;
}

const capturePairs: fc.Arbitrary<Pair[]> = fc
  .uniqueArray(paramName.filter((name) => name !== 'url' && !DOCUMENT_INPUTS.includes(name) && name !== 'markdown_template'), { maxLength: 6 })
  .chain((names) => fc.tuple(target, ...names.map((name) => valid(name, SCHEMA.properties[name] as PropSchema))).map(([url, ...values]) => [['url', url] as Pair, ...names.map((name, index): Pair => [name, values[index]])]));

const captureCase: fc.Arbitrary<CaptureCase> = fc.record({
  route: fc.constant('capture' as const),
  method: fc.oneof({ weight: 8, arbitrary: fc.constant('GET') }, { weight: 10, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') }),
  carrier: fc.constantFrom<Carrier>('query', 'json', 'json', 'form', 'multipart'),
  base: capturePairs,
  mutations: fc.oneof(fc.array(mutation, { maxLength: 1 }), fc.array(mutation, { maxLength: 4 })),
  key: keyPlacement,
  contentType: fc.option(fc.constantFrom(...ODD_CONTENT_TYPES), { nil: undefined, freq: 12 }),
  twoContentTypes: fc.constantFrom(false, false, false, false, false, false, false, true),
  body: fc.oneof({ weight: 16, arbitrary: fc.constant('as-built' as const) }, { weight: 8, arbitrary: fc.constantFrom('invalid-json', 'non-object', 'deep', 'bom', 'bad-utf8', 'over-limit', 'empty', 'chunked') as fc.Arbitrary<CaptureCase['body']> }),
  nonObject: fc.constantFrom('[]', '[{"url":"x"}]', '"x"', '1', 'null', 'true', '{}'),
  multipart: fc.record({
    truncateAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined, freq: 3 }),
    noEnd: fc.boolean(),
    wrongBoundary: fc.constantFrom(false, false, false, true),
    files: fc.constantFrom(0, 0, 0, 1, 2, UPLOADS.files + 1),
    fileBytes: fc.constantFrom(10, 10, UPLOADS.fileBytes, UPLOADS.fileBytes + 1, UPLOADS.totalBytes / 2),
    noDisposition: fc.constantFrom(false, false, false, true),
    manyFields: fc.constantFrom(false, false, false, false, false, true),
  }),
  idempotencyKey: fc.option(fc.oneof(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 10 }).map((text) => text.replace(/[^\x20-\x7e]/g, 'x')), fc.constantFrom(' ', 'k'.repeat(300), 'é')), { nil: undefined, freq: 6 }),
  extra: fc.oneof({ weight: 12, arbitrary: fc.constant('none' as const) }, { weight: 4, arbitrary: fc.constantFrom('repeated-key-header', 'empty-key-header', 'expect-continue', 'many-names') as fc.Arbitrary<CaptureCase['extra']> }),
  cut: fc.nat(),
});

/** What was built: the request, the names it carried, and the bag the service reads (for the guard). */
interface Built {
  request: RawRequest;
  /** Parameter and header names the request carried: an INVALID_PARAMETER must name one (or say what is missing). */
  names: Set<string>;
  /** The route this request is about, for the properties that depend on it. */
  route: string;
  describe: string;
}

function toText(value: unknown): string {
  if (isRaw(value)) return value.raw;
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Percent-encodes like a form, but keeps lone surrogates as the bytes a careless client sends. */
function encodeComponent(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) out += code < 0xdc00 ? '%ED%A0%80' : '%ED%B0%80';
    else out += encodeURIComponent(char);
  }
  return out;
}

function jsonText(pairs: Pair[]): string {
  return `{${pairs.map(([name, value]) => `${JSON.stringify(name)}:${isRaw(value) ? value.raw : JSON.stringify(value === undefined ? null : value)}`).join(',')}}`;
}

function applyMutations(base: Pair[], mutations: Mutation[], carrier: Carrier): { pairs: Pair[]; escapes: { at: number; escape: string }[] } {
  let pairs = base.map(([name, value]): Pair => [name, value]);
  const escapes: { at: number; escape: string }[] = [];
  const set = (name: string, value: unknown): void => {
    const index = pairs.findIndex(([known]) => known === name);
    if (index >= 0) pairs[index] = [name, value];
    else pairs.push([name, value]);
  };
  for (const change of mutations) {
    switch (change.kind) {
      case 'wrong':
      case 'range':
      case 'unicode':
        set(change.name, change.value);
        break;
      case 'huge':
        // A query string of more than 16 KiB is refused by Node's HTTP parser before any adapter: not ours to test.
        set(change.name, carrier === 'query' ? 'h'.repeat(Math.min(5000, (change.value as string).length)) : change.value);
        break;
      case 'repeat':
        pairs.push([change.name, change.value]);
        break;
      case 'unknown':
        pairs.push([change.name, change.value]);
        break;
      case 'drop-url':
        pairs = pairs.filter(([name]) => name !== 'url');
        break;
      case 'upper-url':
        pairs = pairs.map(([name, value]): Pair => [name === 'url' ? 'URL' : name, value]);
        break;
      case 'document':
        set(change.name, change.value);
        break;
      case 'deep':
        set(change.name, change.value);
        break;
      case 'bad-escape':
        escapes.push({ at: change.at, escape: change.escape });
        break;
    }
  }
  return { pairs, escapes };
}

function queryString(pairs: Pair[], escapes: { at: number; escape: string }[]): string {
  const parts = pairs.map(([name, value]) => `${encodeComponent(name)}=${encodeComponent(toText(value))}`);
  for (const { at, escape } of escapes) {
    if (parts.length === 0) parts.push(escape);
    else {
      const index = at % parts.length;
      const part = parts[index] as string;
      const cut = at % (part.length + 1);
      parts[index] = part.slice(0, cut) + escape + part.slice(cut);
    }
  }
  return parts.join('&');
}

function multipartBody(pairs: Pair[], spec: CaptureCase['multipart'], boundary: string): { body: Buffer; fileCount: number } {
  const chunks: string[] = [];
  const quoted = (name: string): string => name.replace(/"/g, '%22').replace(/[\r\n]/g, ' ');
  for (const [name, value] of pairs) {
    const disposition = spec.noDisposition && chunks.length === 0 ? '' : `Content-Disposition: form-data; name="${quoted(name)}"\r\n`;
    chunks.push(`--${boundary}\r\n${disposition}\r\n${toText(value)}\r\n`);
  }
  if (spec.manyFields) for (let index = 0; index < 501; index += 1) chunks.push(`--${boundary}\r\nContent-Disposition: form-data; name="f${index}"\r\n\r\nv\r\n`);
  // The first file leaves the document: uploads are always refused, never captured.
  for (let index = 0; index < spec.files; index += 1) {
    const filename = ['../../etc/passwd', 'index.html', 'a/b.css', 'index.md', '\u00e9.png'][index % 5] as string;
    chunks.push(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${quoted(filename)}"\r\nContent-Type: text/html\r\n\r\n${'f'.repeat(spec.fileBytes)}\r\n`);
  }
  if (!spec.noEnd) chunks.push(`--${boundary}--\r\n`);
  let body = Buffer.from(chunks.join(''));
  if (spec.truncateAt !== undefined) body = body.subarray(0, Math.floor(body.length * spec.truncateAt));
  return { body, fileCount: spec.files };
}

function keyHeaders(key: string): { headers: Record<string, string>; query: Pair[]; body: Pair[] } {
  switch (key) {
    case 'header':
      return { headers: { 'X-API-Key': KEYS.enterprise }, query: [], body: [] };
    case 'free':
      return { headers: { 'X-API-Key': KEYS.free }, query: [], body: [] };
    case 'query':
      return { headers: {}, query: [['api_key', KEYS.enterprise]], body: [] };
    case 'body':
      return { headers: {}, query: [], body: [['api_key', KEYS.enterprise]] };
    case 'wrong':
      return { headers: { 'X-API-Key': 'ce_nobody_0123456789abcdef' }, query: [], body: [] };
    case 'two':
      return { headers: { 'X-API-Key': KEYS.enterprise }, query: [['api_key', KEYS.free]], body: [] };
    case 'huge':
      return { headers: { 'X-API-Key': 'k'.repeat(8000) }, query: [], body: [] };
    default:
      return { headers: {}, query: [], body: [] };
  }
}

function buildCapture(spec: CaptureCase): Built | undefined {
  const { pairs, escapes } = applyMutations(spec.base, spec.mutations, spec.carrier);
  // Far more names than the schema has: 700 fit a query string, 4,000 a body.
  if (spec.extra === 'many-names') for (let index = 0; index < (spec.carrier === 'query' || spec.method !== 'POST' ? 700 : 4000); index += 1) pairs.push([`n${index}`, index]);
  const key = keyHeaders(spec.key);
  const inQuery = spec.carrier === 'query' || spec.method !== 'POST';
  const queryPairs = inQuery ? [...pairs, ...key.query] : key.query;
  const bodyPairs = inQuery ? key.body : [...pairs, ...key.body];
  const query = queryString(queryPairs, escapes);
  const headers: Record<string, string | string[]> = { ...key.headers };
  const names = new Set<string>([...pairs.map(([name]) => name), ...key.query.map(([name]) => name), ...key.body.map(([name]) => name)]);
  for (const [name] of new URLSearchParams(query)) names.add(name);
  let body: Buffer | undefined;
  let chunked = false;
  /** What the service may read of the parameters (the query, then each reading of the body over it), for the guard. */
  const readings: Record<string, unknown>[] = [Object.fromEntries(new URLSearchParams(query))];
  if (!inQuery || spec.method === 'POST') {
    const carrier = inQuery ? 'json' : spec.carrier;
    const boundary = `fuzz${spec.cut % 1000}`;
    let text: string;
    if (carrier === 'multipart') {
      const built = multipartBody(bodyPairs, spec.multipart, boundary);
      body = built.body;
      if (built.fileCount > 0) names.add('files');
      text = '';
    } else {
      text = carrier === 'json' ? jsonText(bodyPairs) : queryString(bodyPairs, escapes);
      if (carrier === 'form') for (const [name] of new URLSearchParams(text)) names.add(name);
      body = Buffer.from(text);
    }
    const type = contentTypes[carrier][spec.cut % Math.max(1, contentTypes[carrier].length)] ?? '';
    const contentType = spec.contentType ?? (carrier === 'multipart' ? `${type}; boundary=${spec.multipart.wrongBoundary ? 'other' : boundary}` : type);
    if (contentType !== '') headers['Content-Type'] = spec.twoContentTypes ? [contentType, 'text/plain'] : contentType;
    switch (spec.body) {
      case 'invalid-json':
        body = body.subarray(0, spec.cut % Math.max(1, body.length));
        break;
      case 'non-object':
        body = Buffer.from(spec.nonObject);
        break;
      case 'deep':
        body = Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
        break;
      case 'bom':
        body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
        break;
      case 'bad-utf8':
        body = Buffer.concat([body.subarray(0, spec.cut % (body.length + 1)), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), body.subarray(spec.cut % (body.length + 1))]);
        break;
      case 'over-limit':
        body = Buffer.concat([body, Buffer.alloc(BODY_LIMIT + 1, 0x20)]);
        break;
      case 'empty':
        body = Buffer.alloc(0);
        break;
      case 'chunked':
        chunked = true;
        break;
    }
    if (carrier !== 'multipart') {
      // The body as sent, read both ways whatever its Content-Type (an app's parser may also drop a BOM).
      const sent = body.toString('utf8').replace(/^\ufeff/, '');
      let asJson: unknown;
      try {
        asJson = JSON.parse(sent);
      } catch {
        asJson = undefined;
      }
      readings.push({ ...readings[0], ...Object.fromEntries(new URLSearchParams(sent)) });
      if (asJson !== null && typeof asJson === 'object' && !Array.isArray(asJson)) readings.push({ ...readings[0], ...(asJson as Record<string, unknown>) });
    }
  }
  if (spec.extra === 'repeated-key-header') headers['X-API-Key'] = [KEYS.enterprise, KEYS.enterprise];
  if (spec.extra === 'empty-key-header') headers['X-API-Key'] = '';
  if (spec.extra === 'expect-continue') headers.Expect = '100-continue';
  if (spec.idempotencyKey !== undefined) {
    headers['Idempotency-Key'] = spec.idempotencyKey;
    names.add('Idempotency-Key');
  }
  if (spec.carrier === 'multipart' && !inQuery) {
    // What the service reads of the fields (a part without its Content-Disposition is skipped); its files never pass.
    const fields = spec.multipart.noDisposition ? bodyPairs.slice(1) : bodyPairs;
    readings.push({ ...readings[0], ...Object.fromEntries(fields.map(([name, value]) => [name, toText(value)])) });
  }
  // The guard: a document with no url would be captured (it needs no target); such a case is not sent.
  if (readings.some(wouldCaptureDocument)) return undefined;
  const path = `/api/v1/capture${query === '' ? '' : `?${query}`}`;
  if (path.length > LONGEST_PATH) return undefined;
  return { request: { method: spec.method, path, headers, body, chunked }, names, route: 'capture', describe: `${spec.method} capture (${spec.carrier}, ${spec.body})` };
}

function wouldCaptureDocument(bag: Record<string, unknown>): boolean {
  if (!DOCUMENT_INPUTS.some((name) => Object.hasOwn(bag, name))) return false;
  try {
    const params = parseCaptureParams(bag);
    return params.url === undefined;
  } catch {
    return false;
  }
}

// --- other routes -------------------------------------------------------------------------------

const BAD_SEGMENTS = ['%', '%zz', '%E0%A4%A', '%C0%80', '%ED%A0%80', '%FF', '%00', '%2F', '..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'a%20b', '%F0%9F%98%80', 'x'.repeat(300), '', '%25', 'constructor', '__proto__'];
const segment = fc.oneof(fc.constantFrom(...BAD_SEGMENTS), fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), fc.tuple(fc.constantFrom(...BAD_SEGMENTS), fc.stringMatching(/^[A-Za-z0-9_-]{0,10}$/)).map(([bad, rest]) => bad + rest));

/** The playground's page itself, without a trailing slash. */
const PAGE = '<page>';

/**
 * Paths of the interface (as every adapter's router sees them) whose dot segments or backslashes
 * a URL parser resolves into another route, the capture's: the path as sent must decide.
 */
const DOT_PATHS = ['/api/v1/./capture', '/api/v1/openapi.json/../capture', '/api/v1/x/../capture', '/api/files/../v1/capture', '/api/files/%2e%2e/v1/capture', '/api/files/.%2E/v1/capture', '/api/playground/../v1/capture', '/api/files/a/..\\..\\v1/capture', '/api/v1/%2E/capture'];
/** A file the storage holds, for byte ranges. */
const STORED = 'fuzz/stored.png';

interface OtherCase {
  route: 'status' | 'bulk-status' | 'file' | 'openapi' | 'playground' | 'unknown' | 'dot-path';
  method: string;
  segment: string;
  query: Pair[];
  key: string;
  ifNoneMatch: string | undefined;
  range: string | undefined;
  /** The file route asks for the stored file. */
  stored: boolean;
  dotPath: string;
}

const otherCase: fc.Arbitrary<OtherCase> = fc.record({
  route: fc.constantFrom('status', 'bulk-status', 'file', 'file', 'openapi', 'playground', 'playground', 'unknown', 'dot-path'),
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE'),
  segment: fc.oneof(segment, fc.constantFrom('playground.js', 'playground.css', 'toString', 'valueOf', 'hasOwnProperty', '', 'playground.js/', 'PLAYGROUND.JS', PAGE)),
  query: fc.array(fc.tuple(fc.constantFrom('offset', 'limit', 'api_key', 'v', '__proto__'), fc.oneof(fc.constantFrom('0', '1', '1000', '1001', '-1', '1.5', '', 'x', '9'.repeat(20), '%zz')) as fc.Arbitrary<unknown>), { maxLength: 3 }),
  key: keyPlacement,
  ifNoneMatch: fc.option(fc.constantFrom('*', '"x"', 'W/"x"', ''), { nil: undefined, freq: 3 }),
  range: fc.option(fc.oneof(fc.constantFrom('bytes=0-1', 'bytes=-1', 'bytes=5-1', 'items=0-1', 'bytes=0-1,2-3', 'x', 'bytes=0-', 'bytes=99-', 'bytes=100-', 'bytes=-0', 'bytes=0-99999999999999999999', 'bytes= 1-2', 'bytes=1-2,', 'bytes=--1'), fc.tuple(fc.integer({ min: -5, max: 120 }), fc.integer({ min: -5, max: 120 })).map(([from, to]) => `bytes=${from}-${to}`)), { nil: undefined, freq: 2 }),
  stored: fc.boolean(),
  dotPath: fc.constantFrom(...DOT_PATHS),
});

function buildOther(spec: OtherCase): Built {
  const key = keyHeaders(spec.key);
  const paths: Record<OtherCase['route'], string> = {
    status: `/api/v1/captures/${spec.segment}`,
    'bulk-status': `/api/v1/bulk/${spec.segment}`,
    file: spec.stored ? `/api/files/${STORED}` : `/api/files/${spec.segment}/${spec.segment}.png`,
    'dot-path': `${spec.dotPath}?url=${encodeURIComponent(`http://127.0.0.1:${port}/`)}`,
    openapi: '/api/v1/openapi.json',
    playground: spec.segment === PAGE ? '/api/playground' : `/api/playground/${spec.segment}`,
    unknown: `/api/v1/${spec.segment}`,
  };
  const query = queryString([...spec.query, ...key.query], []);
  const joined = paths[spec.route].includes('?') ? '&' : '?';
  const headers: Record<string, string> = { ...key.headers };
  if (spec.ifNoneMatch !== undefined) headers['If-None-Match'] = spec.ifNoneMatch;
  if (spec.range !== undefined) headers.Range = spec.range;
  const names = new Set<string>([...spec.query.map(([name]) => name), ...key.query.map(([name]) => name)]);
  if (spec.route === 'dot-path') names.add('url');
  return { request: { method: spec.method, path: `${paths[spec.route]}${query === '' ? '' : `${joined}${query}`}`, headers }, names, route: spec.route, describe: `${spec.method} ${spec.route}` };
}

// --- render links ---------------------------------------------------------------------------------

interface RenderCase {
  route: 'render';
  method: string;
  base: Pair[];
  mutations: Mutation[];
  signer: 'enterprise' | 'free';
  tamper: 'none' | 'none' | 'change-value' | 'add-param' | 'drop-signature' | 'two-signatures' | 'bad-signature' | 'unknown-key' | 'expired' | 'expires-garbage' | 'api-key' | 'bad-escape' | 'two-keys';
  cut: number;
}

const renderCase: fc.Arbitrary<RenderCase> = fc.record({
  route: fc.constant('render' as const),
  method: fc.oneof({ weight: 12, arbitrary: fc.constant('GET') }, { weight: 3, arbitrary: fc.constant('HEAD') }, { weight: 1, arbitrary: fc.constant('POST') }),
  base: capturePairs,
  mutations: fc.oneof(fc.array(mutation, { maxLength: 1 }), fc.array(mutation, { maxLength: 3 })),
  signer: fc.constantFrom('enterprise' as const, 'free' as const),
  tamper: fc.constantFrom('none', 'none', 'none', 'change-value', 'add-param', 'drop-signature', 'two-signatures', 'bad-signature', 'unknown-key', 'expired', 'expires-garbage', 'api-key', 'bad-escape', 'two-keys'),
  cut: fc.nat(),
});

function buildRender(spec: RenderCase): Built | undefined {
  const { pairs, escapes } = applyMutations(spec.base, spec.mutations.filter((change) => change.kind !== 'huge'), 'query');
  const params: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of pairs) {
    const text = toText(value);
    const earlier = params[name];
    params[name] = earlier === undefined ? text : [...(Array.isArray(earlier) ? earlier : [earlier]), text];
  }
  const credentials = operatorLinkCredentials(spec.signer === 'free' ? KEYS.free : KEYS.enterprise);
  let link: string;
  try {
    link = renderLink({ baseUrl: 'http://link.invalid', key: credentials.key, signingSecret: credentials.signingSecret, params: params as { url: string }, ...(spec.tamper === 'expired' ? { expires: new Date(Date.now() - 60_000) } : { expiresIn: 3600 }) });
  } catch {
    return undefined; // the builder refuses `key`, `signature` and `expires` among the parameters
  }
  let query = link.slice(link.indexOf('?') + 1);
  const tampered: Record<RenderCase['tamper'], () => string> = {
    none: () => query,
    'change-value': () => query.replace(/=([^&]*)/, (_, value: string) => `=${value}x`),
    'add-param': () => `${query}&format=jpg`,
    'drop-signature': () => query.replace(/&?signature=[^&]*/, ''),
    'two-signatures': () => `${query}&signature=${/signature=([^&]*)/.exec(query)?.[1] ?? ''}`,
    'bad-signature': () => query.replace(/signature=[^&]*/, 'signature=AAAA'),
    'unknown-key': () => query.replace(/(^|&)key=[^&]*/, '$1key=ce_nobody'),
    expired: () => query,
    'expires-garbage': () => query.replace(/expires=[^&]*/, 'expires=soon'),
    'api-key': () => `${query}&api_key=${KEYS.enterprise}`,
    'bad-escape': () => query,
    'two-keys': () => `${query}&key=${credentials.key}`,
  };
  query = tampered[spec.tamper]();
  if (spec.tamper === 'bad-escape' || escapes.length > 0) {
    const bad = escapes[0]?.escape ?? '%zz';
    const at = spec.cut % (query.length + 1);
    query = query.slice(0, at) + bad + query.slice(at);
  }
  const search = new URLSearchParams(query);
  const bag = Object.fromEntries(search);
  if (query.length > LONGEST_PATH) return undefined;
  if (wouldCaptureDocument(bag)) return undefined;
  return { request: { method: spec.method, path: `/api/v1/render?${query}` }, names: new Set(search.keys()), route: 'render', describe: `${spec.method} render (${spec.tamper})` };
}

// --- batches --------------------------------------------------------------------------------------

interface BulkCase {
  route: 'bulk';
  method: string;
  items: (string | { pairs: Pair[]; mutations: Mutation[]; id: unknown } | number | null)[];
  itemsShape: 'array' | 'missing' | 'string' | 'object' | 'empty' | 'most' | 'too-many';
  defaults: Pair[];
  extra: Pair[];
  key: string;
  body: 'as-built' | 'invalid-json' | 'non-object' | 'form' | 'text';
  cut: number;
}

const bulkItem = fc.oneof(
  { weight: 3, arbitrary: target },
  { weight: 3, arbitrary: fc.record({ pairs: capturePairs, mutations: fc.array(mutation, { maxLength: 2 }), id: fc.option(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom<unknown>(1, '', 'é', 'x'.repeat(201), null)), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constantFrom(1, null) },
);

const bulkCase: fc.Arbitrary<BulkCase> = fc.record({
  route: fc.constant('bulk' as const),
  method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT') }),
  items: fc.array(bulkItem, { maxLength: 12 }),
  itemsShape: fc.oneof({ weight: 8, arbitrary: fc.constant('array' as const) }, { weight: 3, arbitrary: fc.constantFrom('missing', 'string', 'object', 'empty', 'most', 'too-many') as fc.Arbitrary<BulkCase['itemsShape']> }),
  defaults: fc.array(paramName.chain((name) => fc.oneof(valid(name, SCHEMA.properties[name] as PropSchema), wrongType(SCHEMA.properties[name] as PropSchema)).map((value): Pair => [name, value])), { maxLength: 3 }),
  extra: fc.array(fc.tuple(fc.constantFrom('webhook_url', 'format', '__proto__', 'constructor', 'zz'), fc.constantFrom<unknown>('http://fuzz.example/', 1, {}, 'x')), { maxLength: 2 }),
  key: keyPlacement,
  body: fc.constantFrom('as-built', 'as-built', 'as-built', 'as-built', 'invalid-json', 'non-object', 'form', 'text'),
  cut: fc.nat(),
});

function buildBulk(spec: BulkCase): Built {
  const names = new Set<string>(['items', 'defaults']);
  const items = spec.items.map((item) => {
    if (item === null || typeof item !== 'object') {
      if (typeof item === 'string') names.add('url');
      return JSON.stringify(item);
    }
    const { pairs } = applyMutations(item.pairs, item.mutations.filter((change) => change.kind !== 'huge' && change.kind !== 'bad-escape'), 'json');
    for (const [name] of pairs) names.add(name);
    if (item.id !== undefined) {
      pairs.push(['id', item.id]);
      names.add('id');
    }
    return jsonText(pairs);
  });
  for (const [name] of [...spec.defaults, ...spec.extra]) names.add(name);
  // The most items the ENTERPRISE tier takes in a batch (1,000), and one more.
  const many = (count: number): string => `[${Array.from({ length: count }, (_, index) => JSON.stringify(`http://fuzz.example:${port}/${index}`)).join(',')}]`;
  const itemsText = { array: `[${items.join(',')}]`, missing: undefined, string: '"http://fuzz.example/"', object: '{"url":"http://fuzz.example/"}', empty: '[]', most: many(1000), 'too-many': many(1001) }[spec.itemsShape];
  if (spec.itemsShape === 'most' || spec.itemsShape === 'too-many') names.add('url');
  const key = keyHeaders(spec.key);
  for (const [name] of [...key.query, ...key.body]) names.add(name);
  const fields = [...(itemsText === undefined ? [] : [`"items":${itemsText}`]), ...(spec.defaults.length > 0 ? [`"defaults":${jsonText(spec.defaults)}`] : []), ...[...spec.extra, ...key.body].map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`)];
  let text = `{${fields.join(',')}}`;
  let contentType = 'application/json';
  if (spec.body === 'invalid-json') text = text.slice(0, spec.cut % Math.max(1, text.length));
  if (spec.body === 'non-object') text = `[${text}]`;
  if (spec.body === 'form') {
    contentType = 'application/x-www-form-urlencoded';
    text = `items=${encodeURIComponent(itemsText ?? '')}`;
  }
  if (spec.body === 'text') contentType = 'text/plain';
  const query = queryString(key.query, []);
  const headers: Record<string, string> = { ...key.headers, 'Content-Type': contentType };
  const body = spec.method === 'GET' ? undefined : Buffer.from(text);
  return { request: { method: spec.method, path: `/api/v1/bulk${query === '' ? '' : `?${query}`}`, headers, body }, names, route: 'bulk', describe: `${spec.method} bulk (${spec.itemsShape}, ${spec.body})` };
}

// ---------------------------------------------------------------------------------------------
// Properties

const anyCase = fc.oneof(
  { weight: 10, arbitrary: captureCase.map((spec) => () => buildCapture(spec)) },
  { weight: 2, arbitrary: renderCase.map((spec) => () => buildRender(spec)) },
  { weight: 2, arbitrary: bulkCase.map((spec) => () => buildBulk(spec)) },
  { weight: 3, arbitrary: otherCase.map((spec) => () => buildOther(spec)) },
);

const CAPTURING = new Set(['capture', 'render', 'bulk']);

/** Everything wrong with one answer; empty when it keeps every promise. */
function violations(built: Built, answer: RawAnswer): string[] {
  const problems: string[] = [];
  if (answer.timedOut) return [`no answer within ${BUDGET_MS} ms`];
  const { status } = answer;
  if (status >= 500) problems.push(`status ${status}`);
  if (answer.statusText !== STATUS_CODES[status]) problems.push(`status line '${status} ${answer.statusText}'`);
  if (CAPTURING.has(built.route) && status < 400) problems.push(`a ${built.route} request answered ${status}: nothing here may capture`);
  if (built.route === 'dot-path' && status !== 404 && status !== 405) problems.push(`${built.request.path} is no route of the interface as sent, but was answered ${status}`);
  if (built.request.path.startsWith(`/api/files/${STORED}`) && built.request.method !== 'HEAD') problems.push(...rangeViolations(built, answer));
  if (status < 400 || built.request.method === 'HEAD') return problems;
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) problems.push(`error with Content-Type '${type}'`);
  let body: { code?: unknown; error?: unknown; param?: unknown };
  try {
    body = JSON.parse(answer.body.toString('utf8')) as typeof body;
  } catch {
    return [...problems, `error body is not JSON: ${JSON.stringify(answer.body.toString('utf8').slice(0, 120))}`];
  }
  if (typeof body.code !== 'string' || !CODES.has(body.code)) return [...problems, `code ${JSON.stringify(body.code)} is not in the catalogue`];
  if (ERROR_CATALOGUE[body.code as ErrorCode].status !== status) problems.push(`${body.code} answered with ${status}`);
  if (typeof body.error !== 'string' || body.error.length === 0) problems.push('no error message');
  if (answer.headers['x-ratelimit-limit'] === undefined) problems.push('an error without the rate-limit headers');
  if (body.code === 'INVALID_PARAMETER' || body.code === 'TIER_RESTRICTED') {
    const param = body.param;
    if (typeof param !== 'string') problems.push('INVALID_PARAMETER without param');
    else {
      const base = param.replace(/[[.].*$/, '');
      const sent = built.names.has(param) || built.names.has(base) || base === 'body';
      const missing = /missing/.test(String(body.error)) && (PARAMS.includes(base) || base === 'items');
      if (!sent && !missing) problems.push(`${body.code} names '${param}', which the request did not carry (${String(body.error).slice(0, 100)})`);
    }
  }
  return problems;
}

/** The stored file's answer keeps to the Range asked: the bytes it says, and the whole file otherwise. */
function rangeViolations(built: Built, answer: RawAnswer): string[] {
  const size = 100;
  const range = String(built.request.headers?.Range ?? '');
  if (answer.status === 200) return answer.body.length === size ? [] : [`200 with ${answer.body.length} of ${size} bytes`];
  if (answer.status === 416) return answer.headers['content-range'] === `bytes */${size}` ? [] : [`416 with Content-Range ${String(answer.headers['content-range'])}`];
  if (answer.status !== 206) return [];
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(answer.headers['content-range']));
  if (!match) return [`206 with Content-Range ${String(answer.headers['content-range'])} for ${range}`];
  const [start, end, total] = match.slice(1).map(Number) as [number, number, number];
  const problems: string[] = [];
  if (!(start <= end && end < size && total === size)) problems.push(`206 with Content-Range ${match[0]} for ${range}`);
  if (answer.body.length !== end - start + 1 || !answer.body.equals(Buffer.alloc(end - start + 1, 7))) problems.push(`206 ${match[0]} with ${answer.body.length} bytes`);
  return problems;
}

async function send(adapter: AdapterName, built: Built): Promise<RawAnswer | string> {
  tried.set(adapter, (tried.get(adapter) ?? 0) + 1);
  const before = previous.get(adapter);
  previous.set(adapter, summary(built));
  try {
    return await rawRequest((apps.get(adapter) as RunningApp).origin, built.request, { agent: agents.get(adapter), budgetMs: BUDGET_MS });
  } catch (error) {
    return `no answer: ${(error as Error).message} (the request before on this connection: ${before ?? 'none'})`;
  }
}

function summary(built: Built): string {
  const { method, path, headers, body } = built.request;
  const shownBody = body === undefined ? '' : ` body(${body.length})=${JSON.stringify(body.subarray(0, 300).toString('latin1'))}`;
  return `${built.describe}: ${method} ${path.slice(0, 300)} headers=${JSON.stringify(headers ?? {}).slice(0, 200)}${shownBody}`;
}

describe('requests generated from the schema and mutated, on every adapter', () => {
  it('never a 5xx, never a hang, every error from the catalogue naming what was sent', { timeout: 300_000 }, async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(anyCase, async (make) => {
        const built = make();
        fc.pre(built !== undefined);
        const problems: string[] = [];
        const seen: string[] = [];
        for (const adapter of ADAPTERS) {
          const answer = await send(adapter, built);
          if (typeof answer === 'string') {
            problems.push(`${adapter}: ${answer}`);
            continue;
          }
          for (const problem of violations(built, answer)) problems.push(`${adapter}: ${problem} → ${answer.status} ${answer.body.toString('utf8').slice(0, 160)}`);
          const code = answer.body.toString('utf8').match(/"code":"(\w+)"/)?.[1] ?? '';
          seen.push(`${adapter} ${answer.status} ${code}`);
          if (adapter === 'node') {
            const param = code === 'INVALID_PARAMETER' ? ` ${answer.body.toString('utf8').match(/"param":"([^"]*)"/)?.[1] ?? ''}` : '';
            const outcome = `${built.route} ${answer.status} ${code}${param.replace(/\[\d+\]/g, '[i]')}`;
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          }
        }
        // The Express app parses JSON bodies itself (express.json(), as apps do) before the interface
        // sees them, and its parser takes what the service's refuses (a BOM, `application/json;;;`).
        const contentType = JSON.stringify(Object.entries(built.request.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '');
        const compared = built.request.body !== undefined && /json/i.test(contentType) ? seen.filter((line) => !line.startsWith('express ')) : seen;
        const answers = new Set(compared.map((line) => line.slice(line.indexOf(' ') + 1)));
        if (answers.size > 1) problems.push(`adapters disagree: ${seen.join(', ')}`);
        if (problems.length === 0) return;
        const report = `${summary(built)}\n  ${problems.join('\n  ')}`;
        if (COLLECT) collected.push(`VIOLATION ${report}`);
        else throw new Error(report);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: !COLLECT },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (process.env.FUZZ_OUTCOMES === '1') console.log([...outcomes].sort((a, b) => b[1] - a[1]).map(([outcome, count]) => `${count} ${outcome}`).join('\n'));
    console.log(`fuzzed requests per adapter in ${seconds} s: ${ADAPTERS.map((adapter) => `${adapter} ${tried.get(adapter)}`).join(', ')}`);
    if (!COLLECT) expect(collected).toEqual([]);
  });
});

/**
 * What the fuzzer found, kept as cases of their own (issue 47). Each on every adapter, over one
 * kept-alive connection, so that an answer that holds or garbles the connection shows too.
 */
describe.each(ADAPTERS)('found by the fuzzer, on %s', (adapter) => {
  const withKey = { 'X-API-Key': KEYS.enterprise };
  /** Sends the request, then an ordinary one on the same connection; both must answer at once. */
  async function answer(request: RawRequest): Promise<{ status: number; headers: RawAnswer['headers']; json: Record<string, unknown>; text: string }> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const origin = (apps.get(adapter) as RunningApp).origin;
      const first = await rawRequest(origin, request, { agent, budgetMs: 1000 });
      expect(first.timedOut, 'answered within 1 s').toBeUndefined();
      expect(first.statusText).toBe(STATUS_CODES[first.status]);
      const next = await rawRequest(origin, { method: 'GET', path: '/api/v1/openapi.json' }, { agent, budgetMs: 1000 });
      expect(next.status, 'the next request on the connection').toBe(200);
      const text = first.body.toString('utf8');
      let json: Record<string, unknown> = {};
      if (String(first.headers['content-type']).startsWith('application/json')) json = JSON.parse(text) as Record<string, unknown>;
      return { status: first.status, headers: first.headers, json, text };
    } finally {
      agent.destroy();
    }
  }
  const refusal = (status: number, fields: Record<string, unknown>) => async (request: RawRequest): Promise<void> => {
    const got = await answer(request);
    expect({ status: got.status, ...got.json }).toMatchObject({ status, ...fields });
    expect(got.headers['x-ratelimit-limit']).toBeDefined();
  };

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'the playground has no asset %s (was 500, "500 Not Modified", a connection held ~6 s)',
    async (name) => {
      await refusal(404, { code: 'NOT_FOUND' })({ method: 'GET', path: `/api/playground/${name}` });
      await refusal(404, { code: 'NOT_FOUND' })({ method: 'GET', path: `/api/playground/${name}`, headers: { 'If-None-Match': '"x"' } });
    },
  );

  it('/api/playground/ is the playground page (was 404)', async () => {
    const got = await answer({ method: 'GET', path: '/api/playground/' });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(got.text).toContain('data-openapi="/api/v1/openapi.json"');
  });

  it.each(['/api/v1/captures/%E0%A4%A', '/api/v1/captures/%', '/api/v1/bulk/%zz', '/api/v1/bulk/%C0%80?offset=1'])('%s is an unknown id (was an uncaught 500; Fastify: its own 400)', async (path) => {
    await refusal(404, { code: 'NOT_FOUND' })({ method: 'GET', path, headers: withKey });
    await refusal(401, { code: 'MISSING_API_KEY' })({ method: 'GET', path });
  });

  it.each(['/api/v1/%zz', '/api/files/%E0%A4%A/x.png', '/api/playground/%'])('%s, badly encoded, is answered by the interface (Fastify: was its own 400 FST_ERR_BAD_URL)', async (path) => {
    await refusal(404, { code: 'NOT_FOUND' })({ method: 'GET', path, headers: withKey });
  });

  it.each(DOT_PATHS)('%s resolves to no route: the path decides as sent (was answered as the capture)', async (path) => {
    await refusal(404, { code: 'NOT_FOUND' })({ method: 'GET', path: `${path}?url=${encodeURIComponent(`http://127.0.0.1:${port}/`)}`, headers: withKey });
  });

  it.each(['Galaxy S9+', 'Galaxy S9+ landscape'])('device=%s is not refused on every tier (its scale 4.5 was over the schema\'s 4)', async (device) => {
    await refusal(403, { code: 'URL_NOT_ALLOWED' })({ method: 'GET', path: `/api/v1/capture?url=${encodeURIComponent(`http://127.0.0.1:${port}/`)}&device=${encodeURIComponent(device)}`, headers: withKey });
  });

  const post = (contentType: string | string[], body: Buffer, chunked = false): RawRequest => ({ method: 'POST', path: '/api/v1/capture', headers: { ...withKey, 'Content-Type': contentType }, body, chunked });
  /** A capture the tier allows, refused only for its target. */
  const allowed = (): Buffer => Buffer.from(JSON.stringify({ url: `http://127.0.0.1:${port}/` }));

  it.each([';', 'application/json, text/plain', 'application/json;;;'])('Content-Type %j is refused in the interface\'s format (Fastify: was FST_ERR_CTP_INVALID_MEDIA_TYPE)', async (contentType) => {
    // express.json() reads `application/json;;;` as JSON: the Express app then answers the capture's refusal.
    const got = await answer(post(contentType, allowed()));
    expect(got.headers['x-ratelimit-limit']).toBeDefined();
    if (adapter === 'express' && contentType.includes('json;')) expect(got.json).toMatchObject({ code: 'URL_NOT_ALLOWED' });
    else expect({ status: got.status, ...got.json }).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('a JSON body that is not an object is refused as such (Express: was read as an empty body, "url missing")', async () => {
    await refusal(400, { code: 'INVALID_PARAMETER', param: 'body', error: 'Request body must be a JSON object' })(post('application/json', Buffer.from(`[${allowed().toString()}]`)));
    await refusal(400, { code: 'INVALID_PARAMETER', param: 'body', error: 'Request body must be a JSON object' })(post('application/json', Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)));
  });

  it('malformed JSON is a 400 naming the body (Express: was express.json()\'s HTML error page)', async () => {
    await refusal(400, { code: 'INVALID_PARAMETER', param: 'body' })(post('application/json', Buffer.from('{"url": "\xff')));
    await refusal(400, { code: 'INVALID_PARAMETER', param: 'body' })(post('application/json', Buffer.from('"x"')));
  });

  it('a chunked JSON body over every limit is a 413 (Express: was express.json()\'s HTML 413)', async () => {
    await refusal(413, { code: 'PAYLOAD_TOO_LARGE' })(post('application/json', Buffer.from(JSON.stringify({ url: `http://127.0.0.1:${port}/`, pad: 'x'.repeat(150_000) })), true));
  });

  it('a JSON body in a charset express.json() does not read is the interface\'s to answer (Express: was an HTML 415)', async () => {
    await refusal(403, { code: 'URL_NOT_ALLOWED' })(post('application/json; charset=latin1', allowed()));
  });
});
