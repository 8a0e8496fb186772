import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { MARKDOWN_PLACEHOLDER } from '../schema/document-params.js';
import { MARKDOWN_STYLESHEET } from './markdown-stylesheet.js';

type Renderer = (markdown: string) => { html: string; title: string | undefined };

let renderer: Promise<Renderer> | undefined;

/**
 * Markdown as an HTML page: CommonMark with GitHub's tables, task lists and strikethrough (marked),
 * code highlighted by highlight.js, in the default page or the caller's template. The libraries
 * load on the first Markdown document, so URL-only engines never pay for them.
 */
export async function markdownPage(markdown: string, template: string | undefined): Promise<string> {
  renderer ??= loadRenderer();
  const { html, title } = (await renderer)(markdown);
  if (template !== undefined) return template.replace(MARKDOWN_PLACEHOLDER, () => html);
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${title ? `<title>${escapeHtml(title)}</title>` : ''}`;
  return `<!doctype html><html><head>${head}<style>${MARKDOWN_STYLESHEET}\n${await highlightTheme()}</style></head><body><main class="markdown-body">${html}</main></body></html>`;
}

async function loadRenderer(): Promise<Renderer> {
  const [{ Marked }, { markedHighlight }, { default: hljs }] = await Promise.all([import('marked'), import('marked-highlight'), import('highlight.js')]);
  const marked = new Marked(
    { gfm: true, async: false },
    markedHighlight({
      emptyLangClass: 'hljs',
      langPrefix: 'hljs language-',
      highlight: (code, language) => hljs.highlight(code, { language: hljs.getLanguage(language) ? language : 'plaintext' }).value,
    }),
  );
  return (markdown) => {
    const heading = marked.lexer(markdown).find((token) => token.type === 'heading');
    return { html: marked.parse(markdown, { async: false }), title: heading && 'text' in heading ? String(heading.text) : undefined };
  };
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
