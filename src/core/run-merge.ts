import { rm } from 'node:fs/promises';
import { PHASES, type MergedPart } from './plugin-api.js';
import type { RunOutcome } from './capture-result.js';
import type { PhaseTimings } from './phases.js';
import type { EgressGuard } from './ports.js';
import type { MergePart } from './schema/merge-parts.js';
import { runCapture, type CaptureRun } from './run-capture.js';
import { documentAt, documentOf, type CaptureDocument } from './document/capture-document.js';
import { abortable } from './deadline.js';
import { CaptureError } from './errors/catalogue.js';
import { PDF_OPTION_PROPERTIES } from './schema/pdf-params.js';

/** The longest outline title taken from a page: pdf_title's bound. */
const MAX_TITLE = (PDF_OPTION_PROPERTIES.pdf_title as { maxLength?: number }).maxLength;
/** A part runs every phase but store: only the merged PDF is stored. */
const PART_PHASES = PHASES.filter((phase) => phase !== 'store');
/** The merge itself: the parts are joined and finished in encode (pdf-finish), then stored. */
const MERGE_PHASES = ['encode', 'store'] as const;

/**
 * pdf_merge: each part captured in turn through the phases, on the capture's one page, context and
 * deadline, then one run that joins them (a pdf-finish stage), finishes and stores the merged PDF.
 * The parts' temporary files are removed whatever happens.
 */
export async function runMerge(run: CaptureRun, parts: readonly MergePart[], egress: EgressGuard): Promise<RunOutcome> {
  const { params, deadline } = run;
  const merged: MergedPart[] = [];
  const timings: PhaseTimings[] = [];
  const incomplete = new Set<string>();
  let bytes = 0;
  try {
    for (const part of parts) {
      if (part.pdf) {
        merged.push({ index: part.index, title: part.title ?? (part.file as string), file: part.file });
        continue;
      }
      const { url } = part.params;
      // As a top-level url: the guard checked its address before the queue (loadedUrls); robots.txt here.
      if (url !== undefined && params.robots_txt === 'respect') await abortable(egress.checkRobots(await egress.checkTarget(url)), deadline.signal);
      const document = await abortable(partDocument(part, run.document, params.markdown_template, deadline.signal), deadline.signal);
      const partTimings: PhaseTimings = {};
      timings.push(partTimings);
      // What the parts printed so far leave of pdf_max_bytes is the most the next may print.
      const left = params.pdf_max_bytes === undefined ? undefined : Math.max(1, params.pdf_max_bytes - bytes);
      const outcome = await runCapture({ ...run, params: { ...part.params, pdf_max_bytes: left }, document, timings: partTimings, phases: PART_PHASES, hooks: run.hooks }).catch((error: unknown) => {
        throw inPart(error, part, params.pdf_max_bytes);
      });
      const { data, path, size } = outcome.output;
      bytes += size;
      // A page's title may be megabytes: an entry gets pdf_title's most.
      const title = part.title ?? ((await run.lease.page.title().catch(() => '')).trim().slice(0, MAX_TITLE) || url || part.file || `Part ${part.index + 1}`);
      merged.push({ index: part.index, title, data, path });
      for (const name of outcome.incomplete) incomplete.add(name);
    }
    const final: PhaseTimings = {};
    timings.push(final);
    const outcome = await runCapture({ ...run, timings: final, phases: MERGE_PHASES, merged, hooks: {} });
    return { ...outcome, incomplete: [...incomplete, ...outcome.incomplete], timings: run.timings };
  } finally {
    // The engine's timings (its queue's) with every run's phases: a failure too says how far it got.
    Object.assign(run.timings, summed(timings));
    await Promise.all(merged.map(({ path }) => (path === undefined ? undefined : rm(path, { force: true }))));
  }
}

/** What a part prints: its html or Markdown, an upload opened among the other uploads, or nothing (its url). */
function partDocument(part: MergePart, uploads: CaptureDocument | undefined, template: string | undefined, signal: AbortSignal): Promise<CaptureDocument | undefined> {
  if (part.file !== undefined && uploads) return documentAt(uploads, part.file, template, signal);
  return documentOf(part.params, signal);
}

/**
 * A part's failure, said of its part: a parameter its params set named by its place
 * (`pdf_merge[1].params.pdf_page_ranges`), and a part past pdf_max_bytes the merged PDF past it.
 */
function inPart(error: unknown, { index, own }: MergePart, maxBytes: number | undefined): unknown {
  if (!(error instanceof CaptureError)) return error;
  const over = error.code === 'PAYLOAD_TOO_LARGE' && error.details.param === 'pdf_max_bytes';
  const message = over ? `The merged PDF is larger than pdf_max_bytes (${(maxBytes as number).toLocaleString('en-US')} bytes)` : error.message;
  const { param } = error.details as { param?: string };
  const placed = param !== undefined && own.includes(param) ? { param: `pdf_merge[${index}].params.${param}` } : {};
  return new CaptureError(error.code, `pdf_merge[${index}]: ${message}`, { details: { ...error.details, ...(over ? { max: maxBytes } : {}), ...placed }, headers: error.headers, cause: error });
}

/** Each phase's time over every run. */
function summed(runs: readonly PhaseTimings[]): PhaseTimings {
  const total: PhaseTimings = {};
  for (const timings of runs) for (const [phase, ms] of Object.entries(timings) as [keyof PhaseTimings, number][]) total[phase] = (total[phase] ?? 0) + ms;
  return total;
}
