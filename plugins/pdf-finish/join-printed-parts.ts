import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.js';
import type { QpdfJob } from './qpdf-pass.js';
import { readPdfStructure, type Destination, type JsonDict, type JsonValue, type OutlineEntry, type PdfStructure } from './pdf-structure.js';

/**
 * Parts of one document printed in page ranges, joined on disk by qpdf into `output`: their pages
 * in order, with the first part's catalog (language, viewer settings), and the outline and named
 * destinations (the targets of the document's own links) of every part, pointed at the joined
 * pages. Chromium's structure tree (tags) is per part, numbered from 0 in each: it is not carried,
 * rather than carried wrong. Nothing is read into memory but the files' object graphs.
 */
export async function joinPrintedParts(parts: readonly PdfStructure[], files: readonly string[], output: string, job: QpdfJob): Promise<void> {
  const pagesJoined = path.join(job.dir, 'pages.pdf');
  const [first, ...rest] = files;
  if (first === undefined) throw new Error('no part to join');
  await runTool({ step: 'pdf', binary: job.qpdf, args: [first, '--pages', '.', '1-z', ...rest.flatMap((file) => [file, '1-z']), '--', pagesJoined], cwd: job.dir, output: pagesJoined, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
  const joined = await readPdfStructure(pagesJoined, job);
  const offsets = parts.map((_, index) => parts.slice(0, index).reduce((sum, part) => sum + part.pages.length, 0));
  const update = new Update(joined);
  const pageRef = (destination: Destination, part: number): JsonValue[] | undefined => {
    const page = joined.pages[(offsets[part] ?? 0) + destination.page];
    return page === undefined ? undefined : [page, ...destination.view];
  };
  const destinations: JsonDict = {};
  parts.forEach((part, index) => part.destinations.forEach((destination, name) => {
    const target = pageRef(destination, index);
    if (target) destinations[name] = target;
  }));
  const outline = update.outline(parts.flatMap((part, index) => part.outline.map((entry) => ({ entry, part: index }))), pageRef);
  const catalog: JsonDict = { ...joined.catalog, '/Dests': update.add(destinations) };
  delete catalog['/StructTreeRoot'];
  delete catalog['/MarkInfo'];
  delete catalog['/Outlines'];
  if (outline !== undefined) catalog['/Outlines'] = outline;
  update.set(joined.root, catalog);
  const updateFile = path.join(job.dir, 'update.json');
  await writeFile(updateFile, JSON.stringify(update.json()));
  await runTool({ step: 'pdf', binary: job.qpdf, args: [pagesJoined, `--update-from-json=${updateFile}`, output], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
}

/** Objects for qpdf's `--update-from-json`: new ones numbered after the file's last. */
class Update {
  private readonly objects: Record<string, { value: JsonValue }> = {};
  private next: number;

  constructor(file: PdfStructure) {
    this.next = file.maxObjectId + 1;
  }

  reserve(): string {
    return `${this.next++} 0 R`;
  }

  set(ref: string, value: JsonValue): string {
    this.objects[`obj:${ref}`] = { value };
    return ref;
  }

  add(value: JsonValue): string {
    return this.set(this.reserve(), value);
  }

  /** The outline's root over `entries` in order, each pointed at its joined page; none when there are no entries. */
  outline(entries: readonly { entry: OutlineEntry; part: number }[], pageRef: (destination: Destination, part: number) => JsonValue[] | undefined): string | undefined {
    if (entries.length === 0) return undefined;
    const root = this.reserve();
    const count = this.items(root, entries, pageRef);
    return this.set(root, { '/Type': '/Outlines', ...count });
  }

  /** Writes `entries` as the children of `parent`; what the parent's dictionary needs to point at them. */
  private items(parent: string, entries: readonly { entry: OutlineEntry; part: number }[], pageRef: (destination: Destination, part: number) => JsonValue[] | undefined): JsonDict {
    const refs = entries.map(() => this.reserve());
    let visible = entries.length;
    entries.forEach(({ entry, part }, index) => {
      const below = entry.kids.length > 0 ? this.items(refs[index] as string, entry.kids.map((kid) => ({ entry: kid, part })), pageRef) : {};
      const shown = Number(below['/Count'] ?? 0);
      if (entry.open && shown > 0) visible += shown;
      const destination = entry.destination && pageRef(entry.destination, part);
      this.set(refs[index] as string, {
        '/Title': entry.title,
        '/Parent': parent,
        ...(index > 0 ? { '/Prev': refs[index - 1] as string } : {}),
        ...(index < refs.length - 1 ? { '/Next': refs[index + 1] as string } : {}),
        ...(destination ? { '/Dest': destination } : {}),
        ...below,
        ...(entry.kids.length > 0 ? { '/Count': entry.open ? shown : -shown } : {}),
      });
    });
    return { '/First': refs[0] as string, '/Last': refs.at(-1) as string, '/Count': visible };
  }

  json(): JsonValue {
    return { qpdf: [{ jsonversion: 2, pushedinheritedpageresources: false, calledgetallpages: false, maxobjectid: this.next - 1 }, this.objects] } as unknown as JsonValue;
  }
}
