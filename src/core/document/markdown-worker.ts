import { Marked } from 'marked';
import { markedHighlight } from 'marked-highlight';
import hljs from 'highlight.js';

/**
 * Markdown to HTML in a worker thread (piscina): marked and highlight.js take about a second per
 * MiB, which on the service's event loop would stall every other request. Built on its own into
 * `dist/workers/` (see tsup.config.ts); `markdown-page.ts` runs it.
 */
const marked = new Marked(
  { gfm: true, async: false },
  markedHighlight({
    emptyLangClass: 'hljs',
    langPrefix: 'hljs language-',
    highlight: (code, language) => hljs.highlight(code, { language: hljs.getLanguage(language) ? language : 'plaintext' }).value,
  }),
);

export default function renderMarkdown(markdown: string): { html: string; title: string | undefined } {
  const heading = marked.lexer(markdown).find((token) => token.type === 'heading');
  return { html: marked.parse(markdown, { async: false }), title: heading && 'text' in heading ? String(heading.text) : undefined };
}
