import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.js';
import type { QpdfJob } from './qpdf-pass.js';

/** A value as qpdf's JSON (version 2) writes it: `"12 0 R"` references, `"/Name"` names, `"u:text"` strings. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonDict = { [key: string]: JsonValue };

/** A destination: the page it opens (from 0) and the rest of its array (`/XYZ left top zoom`). */
export interface Destination {
  page: number;
  view: JsonValue[];
}

/** An outline entry as the file has it: its title kept in qpdf's encoding, where it opens, its entries below. */
export interface OutlineEntry {
  title: JsonValue;
  destination?: Destination;
  open: boolean;
  kids: OutlineEntry[];
}

/** What a joined document needs of a file: its objects, catalog, pages in order, outline and named destinations. */
export interface PdfStructure {
  objects: Map<string, JsonValue>;
  maxObjectId: number;
  root: string;
  catalog: JsonDict;
  pages: string[];
  outline: OutlineEntry[];
  destinations: Map<string, Destination>;
}

const isDict = (value: JsonValue | undefined): value is JsonDict => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRef = (value: JsonValue | undefined): value is string => typeof value === 'string' && / \d+ R$/.test(value);

/**
 * The file's object graph without stream data, as `qpdf --json-output` writes it (a few hundred KB
 * for a 100-page part of images: the images themselves are never read).
 */
export async function readPdfStructure(file: string, job: QpdfJob): Promise<PdfStructure> {
  const output = path.join(job.dir, `${path.basename(file)}.json`);
  await runTool({ step: 'pdf', binary: job.qpdf, args: ['--json-output=2', '--json-stream-data=none', file, output], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
  const [header, body] = (JSON.parse(await readFile(output, 'utf8')) as { qpdf: [{ maxobjectid: number }, Record<string, { value?: JsonValue; stream?: { dict: JsonValue } }>] }).qpdf;
  const objects = new Map<string, JsonValue>();
  for (const [key, object] of Object.entries(body)) objects.set(key.replace(/^obj:/, ''), object.value ?? object.stream?.dict ?? null);
  const resolve = (value: JsonValue | undefined): JsonValue | undefined => (isRef(value) ? objects.get(value) : value);
  const trailer = resolve(objects.get('trailer'));
  const root = isDict(trailer) ? trailer['/Root'] : undefined;
  const catalog = resolve(root);
  if (!isRef(root) || !isDict(catalog)) throw new Error(`${path.basename(file)}: no catalog`);
  const pages: string[] = [];
  const walk = (node: JsonValue | undefined, ref: string): void => {
    const dict = resolve(node);
    if (!isDict(dict)) return;
    if (dict['/Type'] === '/Page') return void pages.push(ref);
    for (const kid of (dict['/Kids'] as JsonValue[] | undefined) ?? []) if (isRef(kid)) walk(kid, kid);
  };
  walk(catalog['/Pages'], String(catalog['/Pages']));
  const pageIndex = new Map(pages.map((ref, index) => [ref, index]));
  const destinationOf = (value: JsonValue | undefined): Destination | undefined => {
    const array = resolve(value);
    const page = Array.isArray(array) ? pageIndex.get(String(array[0])) : undefined;
    return page === undefined ? undefined : { page, view: (array as JsonValue[]).slice(1) };
  };
  const entries = (first: JsonValue | undefined): OutlineEntry[] => {
    const list: OutlineEntry[] = [];
    const seen = new Set<string>();
    for (let ref = first; isRef(ref) && !seen.has(ref); ref = (resolve(ref) as JsonDict)['/Next']) {
      seen.add(ref);
      const item = resolve(ref);
      if (!isDict(item)) break;
      list.push({ title: item['/Title'] ?? 'u:', destination: destinationOf(item['/Dest']), open: Number(item['/Count'] ?? 0) >= 0, kids: entries(item['/First']) });
    }
    return list;
  };
  const outlineRoot = resolve(catalog['/Outlines']);
  const named = resolve(catalog['/Dests']);
  const destinations = new Map<string, Destination>();
  for (const [name, value] of Object.entries(isDict(named) ? named : {})) {
    const destination = destinationOf(isDict(resolve(value)) ? (resolve(value) as JsonDict)['/D'] : value);
    if (destination) destinations.set(name, destination);
  }
  return { objects, maxObjectId: header.maxobjectid, root, catalog, pages, outline: isDict(outlineRoot) ? entries(outlineRoot['/First']) : [], destinations };
}
