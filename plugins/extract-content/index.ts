import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { FORMATS, isContentFormat, type ContentFormat } from '../../src/core/schema/formats.js';
import { outputsOf } from '../../src/core/schema/output-params.js';
import { pageOutput, type PageOutput } from './page-output.js';
import type { MetadataAnswer } from '../../src/core/page-content.js';

export { pageOutput, OUTPUT_LIMITS, type PageOutput, type PageOutputOptions } from './page-output.js';
export type { ContentAnswers, LinksAnswer, MetadataAnswer, PageLink, ScrapeAnswer, ScrapedElement, ScrapeRule } from '../../src/core/page-content.js';

/**
 * What the settled page says, from the same page as the picture (after blocking, hiding and
 * actions): `format=markdown|html|text|links|metadata|aria|scrape` as the capture's file, and
 * `outputs=` as files stored beside an image or a PDF, from one navigation. Registered after the
 * scenarios, so a sidecar is read after the shot.
 */
export function extractContent(): CapturePlugin {
  return {
    name: 'extract-content',
    stages: [
      {
        name: 'extract',
        phase: 'capture',
        leavesContextState: false,
        when: (params) => isContentFormat(params.format),
        run: async (ctx) => {
          const format = ctx.params.format as ContentFormat;
          const { data } = await extract(ctx, format);
          ctx.output = { format, size: data.length, data };
        },
      },
      {
        // The older `metadata=true`: format=metadata's answer as the JSON result's `page`.
        name: 'metadata',
        phase: 'capture',
        leavesContextState: false,
        when: (params) => params.metadata && params.response_type === 'json',
        run: async (ctx) => {
          const answer = JSON.parse((await extract(ctx, 'metadata')).data.toString('utf8')) as MetadataAnswer;
          ctx.metadata = { ...answer, og_image: answer.open_graph.image ?? null };
        },
      },
      {
        name: 'outputs',
        phase: 'capture',
        leavesContextState: false,
        when: (params) => params.outputs !== undefined,
        run: async (ctx) => {
          for (const name of outputsOf(ctx.params)) {
            const { data } = await extract(ctx, name);
            const { extension, contentType } = FORMATS[name];
            ctx.sidecars.push({ name, extension, contentType, data });
          }
        },
      },
    ],
  };
}

async function extract(ctx: CaptureContext, format: ContentFormat): Promise<PageOutput> {
  const { params } = ctx;
  const output = await pageOutput(ctx.page, format, {
    content: params.content,
    linksSelector: params.links_selector,
    selector: format === 'aria' ? params.selector : undefined,
    scrape: params.scrape,
    // A document's address and headers are the engine's own, not the caller's page.
    response: ctx.response && !ctx.document ? { status: ctx.response.status, headers: ctx.response.headers } : null,
    ...(ctx.document ? { finalUrl: '' } : {}),
    timeoutMs: ctx.remaining(),
  });
  // A cut output says so: in its JSON, and in the capture's `incomplete` (X-Capture-Incomplete).
  if (output.truncated) ctx.incomplete.push(format);
  return output;
}
