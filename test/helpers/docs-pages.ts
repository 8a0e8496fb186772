import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** The repository's root, where the README is. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The README and the pages of docs/, as paths from the root: what a reader of the project reads. */
export function docPages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

export const readPage = (page: string): string => readFileSync(path.join(ROOT, page), 'utf8');

const tokensOf = (text: string): Token[] => {
  const found: Token[] = [];
  marked.walkTokens(marked.lexer(text), (token) => void found.push(token));
  return found;
};

export interface CodeBlock {
  /** `docs/library.md:42`: the page and the line of the opening fence. */
  where: string;
  lang: string;
  code: string;
  /** Why the block is not run, when its first line says `not run by the tests: <why>`. */
  notRun?: string;
}

const NOT_RUN = /^(?:#|\/\/) not run by the tests: (.+)$/;

/** The fenced code blocks of a page, in order. */
export function codeBlocks(page: string): CodeBlock[] {
  const text = readPage(page);
  let from = 0;
  return tokensOf(text)
    .filter((token): token is Tokens.Code => token.type === 'code')
    .map((token) => {
      const at = text.indexOf(token.raw, from);
      from = at + token.raw.length;
      const line = text.slice(0, at).split('\n').length;
      return { where: `${page}:${line}`, lang: token.lang ?? '', code: token.text, notRun: NOT_RUN.exec(token.text.split('\n')[0] ?? '')?.[1] };
    });
}

/** The text a reader sees of some inline tokens: what GitHub makes a heading's anchor from. */
const plainText = (tokens: Token[]): string => tokens.map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens) : 'text' in token ? token.text : '')).join('');

/** The anchors GitHub gives a page's headings (`#operator-keys`), repeated names numbered as it does. */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  return new Set(tokensOf(text).filter((token): token is Tokens.Heading => token.type === 'heading').map((token) => slugger.slug(plainText(token.tokens))));
}

/** Every link and image target of a page. */
export const linksOf = (text: string): string[] => tokensOf(text).flatMap((token) => (token.type === 'link' || token.type === 'image' ? [(token as Tokens.Link | Tokens.Image).href] : []));
