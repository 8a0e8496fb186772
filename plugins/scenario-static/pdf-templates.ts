import type { CaptureContext } from '../../src/core/plugin-api.js';
import { abortable } from '../../src/core/deadline.js';
import { assetFor, bytesOf } from '../../src/core/document/capture-document.js';
import { readCdpStream } from './read-cdp-stream.js';

/** Chromium prints an empty template where none is given, instead of its date, title and URL. */
const EMPTY_TEMPLATE = '<span></span>';
/** An asset larger than this stays a reference: the template travels in one protocol message. */
const LARGEST_INLINED_BYTES = 5 * 1024 * 1024;
/** `src="..."` of images and `url(...)` of styles (fonts, backgrounds). */
const REFERENCE = /(\bsrc\s*=\s*)(["'])([^"']+)\2|(\burl\(\s*)(["']?)([^"')]+)\5(\s*\))/gi;

/** `Page.printToPDF`'s header and footer: the caller's templates, their assets inlined. */
export async function headerFooter(ctx: CaptureContext): Promise<{ displayHeaderFooter?: boolean; headerTemplate?: string; footerTemplate?: string }> {
  const { pdf_header_html: header, pdf_footer_html: footer } = ctx.params;
  if (header === undefined && footer === undefined) return {};
  const [headerTemplate, footerTemplate] = await Promise.all([header, footer].map((template) => (template === undefined ? EMPTY_TEMPLATE : inlineAssets(ctx, template))));
  return { displayHeaderFooter: true, headerTemplate, footerTemplate };
}

/**
 * Header and footer templates are printed in a context that loads nothing: an image or a font
 * they reference would be missing. Each is fetched as the page would (from the document, or over
 * the network through the page's own frame, so through the egress guard) and written in as a
 * data URL. What cannot be fetched stays as it was and is reported to the operator.
 */
async function inlineAssets(ctx: CaptureContext, template: string): Promise<string> {
  const base = ctx.page.url();
  const wanted = new Set<string>();
  for (const match of template.matchAll(REFERENCE)) {
    const reference = match[3] ?? match[6];
    if (reference !== undefined && !/^data:/i.test(reference) && URL.canParse(reference, base)) wanted.add(reference);
  }
  if (wanted.size === 0) return template;
  const inlined = new Map<string, string>();
  await Promise.all(
    [...wanted].map(async (reference) => {
      const url = new URL(reference, base).href;
      const asset = await abortable(fetchAsset(ctx, url), ctx.signal).catch((error: unknown) => ctx.warn(`pdf template asset not inlined: ${url}`, error));
      if (asset) inlined.set(reference, `data:${asset.type};base64,${asset.body.toString('base64')}`);
    }),
  );
  return template.replace(REFERENCE, (whole, srcStart: string | undefined, srcQuote: string, src: string | undefined, urlStart: string, urlQuote: string, url: string, urlEnd: string) => {
    const data = inlined.get(src ?? url);
    if (data === undefined) return whole;
    return srcStart !== undefined ? `${srcStart}${srcQuote}${data}${srcQuote}` : `${urlStart}${urlQuote || '"'}${data}${urlQuote || '"'}${urlEnd}`;
  });
}

async function fetchAsset(ctx: CaptureContext, url: string): Promise<{ body: Buffer; type: string } | undefined> {
  if (ctx.document && url.startsWith(new URL(ctx.document.url).origin)) {
    const asset = assetFor(ctx.document, url);
    return asset && { body: await bytesOf(asset), type: asset.type };
  }
  if (!/^https?:/i.test(url)) return undefined;
  const { frameTree } = await ctx.cdp.send('Page.getFrameTree');
  const { resource } = await ctx.cdp.send('Network.loadNetworkResource', { frameId: frameTree.frame.id, url, options: { disableCache: false, includeCredentials: false } });
  if (!resource.success || resource.stream === undefined) throw new Error(resource.netErrorName ?? `HTTP ${resource.httpStatusCode}`);
  const body = await readCdpStream(ctx.cdp, resource.stream, ctx.signal, LARGEST_INLINED_BYTES);
  const type = Object.entries(resource.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return { body, type: String(type ?? 'application/octet-stream').split(';')[0] as string };
}
