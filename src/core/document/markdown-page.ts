import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Piscina } from 'piscina';
import { MARKDOWN_PLACEHOLDER } from '../schema/document-params.js';
import { captureErrors } from '../errors/factories.js';
import { lazyRequire } from '../loading/lazy-require.js';
import { MARKDOWN_STYLESHEET } from './markdown-stylesheet.js';

/** Longest a conversion may run, whatever is left of the capture's budget: a worker past it is ended. */
export const MARKDOWN_TIME_LIMIT_MS = 10_000;

const piscina = lazyRequire<{ Piscina: typeof Piscina }>('piscina');
let pool: Piscina | undefined;

/**
 * One worker thread at most, started on the first Markdown document and ended after a minute
 * unused: conversions queue for it rather than take the service's cores from the browsers, and
 * its heap is capped, so a document built to blow up marked costs the worker, never the service.
 */
function markdownWorkers(): Piscina {
  pool ??= new (piscina().Piscina)({
    filename: createRequire(import.meta.url).resolve('capture-engine/workers/markdown-worker.js'),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  return pool;
}

/**
 * Markdown as an HTML page: CommonMark with GitHub's tables, task lists and strikethrough (marked),
 * code highlighted by highlight.js, in the default page or the caller's template. Converted in a
 * worker thread, ended when `signal` aborts or after `MARKDOWN_TIME_LIMIT_MS`.
 */
export async function markdownPage(markdown: string, template: string | undefined, signal?: AbortSignal): Promise<string> {
  const { html, title } = await renderInWorker(markdown, signal);
  if (template !== undefined) return template.replace(MARKDOWN_PLACEHOLDER, () => html);
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${title ? `<title>${escapeHtml(title)}</title>` : ''}`;
  return `<!doctype html><html><head>${head}<style>${MARKDOWN_STYLESHEET}\n${await highlightTheme()}</style></head><body><main class="markdown-body">${html}</main></body></html>`;
}

/** Markdown as HTML alone, without a page around it (a part of a page that includes it). */
export async function markdownHtml(markdown: string, signal?: AbortSignal): Promise<string> {
  return (await renderInWorker(markdown, signal)).html;
}

async function renderInWorker(markdown: string, signal?: AbortSignal): Promise<{ html: string; title: string | undefined }> {
  const limit = AbortSignal.timeout(MARKDOWN_TIME_LIMIT_MS);
  let rendered: { html: string; title: string | undefined };
  try {
    rendered = (await markdownWorkers().run(markdown, { signal: signal ? AbortSignal.any([signal, limit]) : limit })) as typeof rendered;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (limit.aborted) throw captureErrors.invalidParameter('markdown', `Invalid parameter 'markdown': it did not convert to HTML within ${MARKDOWN_TIME_LIMIT_MS / 1000} s`, 'Markdown that converts within the time limit');
    throw error;
  }
  return rendered;
}

/** Ends the worker thread (when the engine closes): an idle one would keep the process alive a minute. */
export async function closeMarkdownWorkers(): Promise<void> {
  const running = pool;
  pool = undefined;
  await running?.destroy();
}

let theme: Promise<string> | undefined;

/** highlight.js's GitHub theme, read once from the package. */
function highlightTheme(): Promise<string> {
  theme ??= readFile(createRequire(import.meta.url).resolve('highlight.js/styles/github.min.css'), 'utf8');
  return theme;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
