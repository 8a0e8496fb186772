import { documentPath } from '../schema/document-params.js';
import { captureErrors } from '../errors/factories.js';
import { markdownHtml } from './markdown-page.js';

/** Gotenberg's Markdown route's placeholder: `{{ toHTML "chapter.md" }}` in index.html. */
const TO_HTML = /\{\{\s*toHTML\s+"([^"]{1,512})"\s*\}\}/g;
/** Most Markdown files one page includes: each is a conversion in the one worker thread. */
export const MAX_MARKDOWN_INCLUDES = 50;

const refused = (problem: string): Error =>
  captureErrors.invalidParameter('files', `Invalid parameter 'files': ${problem}`, `an index.html whose {{ toHTML "file.md" }} name Markdown files among the files, at most ${MAX_MARKDOWN_INCLUDES}`);

/**
 * Several Markdown files in one page, as Gotenberg's Markdown route takes them: each
 * `{{ toHTML "name.md" }}` of the document's index.html becomes that file rendered (as `markdown`
 * is, without the default page around it). A name the files do not have is the caller's mistake.
 */
export async function includeMarkdown<Asset>(assets: Map<string, Asset>, read: (asset: Asset) => Promise<Buffer>, page: (html: string) => Asset, signal?: AbortSignal): Promise<void> {
  const entry = assets.get('index.html');
  if (entry === undefined) return;
  const text = (await read(entry)).toString('utf8');
  const names = [...new Set([...text.matchAll(TO_HTML)].map((match) => match[1] as string))];
  if (names.length === 0) return;
  if (names.length > MAX_MARKDOWN_INCLUDES) throw refused(`index.html includes ${names.length} Markdown files, more than ${MAX_MARKDOWN_INCLUDES}`);
  const rendered = new Map<string, string>();
  for (const name of names) {
    const asset = assets.get(documentPath(name) ?? '');
    if (asset === undefined) throw refused(`index.html includes "${name}", which is not among the files`);
    rendered.set(name, await markdownHtml((await read(asset)).toString('utf8'), signal));
  }
  assets.set('index.html', page(text.replace(TO_HTML, (_, name: string) => rendered.get(name) ?? '')));
}
