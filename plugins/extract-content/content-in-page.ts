/* eslint-disable @typescript-eslint/no-explicit-any -- the libraries are handed in untyped, as the page loaded them */

/** What `contentInPage` is asked for: Markdown, HTML or text of the page, at most `maxChars` long. */
export interface ContentRequest {
  format: 'markdown' | 'html' | 'text';
  content: 'main' | 'full';
  maxChars: number;
}

export interface ContentAnswer {
  text: string;
  /** Cut at `maxChars`. */
  truncated: boolean;
}

/** Readability, turndown and its GFM plugin, as `pageLibraries()` loads them in the page. */
export interface ContentLibraries {
  Readability: any;
  TurndownService: any;
  turndownPluginGfm: any;
}

/**
 * Runs in the page (serialised with `toString()`: nothing from outside it but its arguments and the
 * page's own globals). The page is read where it lives, so a huge DOM costs the renderer, never the
 * service's event loop, and only the capped answer crosses the protocol.
 */
export function contentInPage(request: ContentRequest, libs: ContentLibraries): ContentAnswer {
  const cap = (text: string): ContentAnswer => (text.length > request.maxChars ? { text: text.slice(0, request.maxChars), truncated: true } : { text, truncated: false });
  if (request.format === 'text') return cap(document.body?.innerText ?? '');
  if (request.format === 'html' && request.content === 'full') {
    const doctype = document.doctype ? `${new XMLSerializer().serializeToString(document.doctype)}\n` : '';
    return cap(doctype + document.documentElement.outerHTML);
  }
  const dropped = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'LINK', 'META', 'IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'CANVAS', 'SVG']);
  const head = document.head;
  const hidden = (element: Element): boolean => {
    if (element === head || element.parentElement === head) return false;
    if (element.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)) return false;
    // An element without a box of its own may still show its children.
    return getComputedStyle(element).display !== 'contents';
  };
  /**
   * A copy of `root` without scripts, styles, embedded frames and what is not shown (hidden
   * elements, `hide_selectors`), with links and images made absolute and each code block a
   * `<pre><code class="language-x">` of its text (the language from `language-*` or `lang-*`).
   */
  const cleaned = (root: Element): Element => {
    const copy = root.cloneNode(true) as Element;
    const live = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    const mirror = document.createTreeWalker(copy, NodeFilter.SHOW_ELEMENT);
    const pastSubtree = (walker: TreeWalker): boolean => {
      while (!walker.nextSibling()) if (!walker.parentNode()) return false;
      return true;
    };
    const removed: Element[] = [];
    const blocks: [Element, Element][] = [];
    let more = true;
    while (more) {
      const element = live.currentNode as Element;
      const twin = mirror.currentNode as Element;
      if (dropped.has(element.tagName.toUpperCase()) || (element !== root && hidden(element))) {
        removed.push(twin);
        more = pastSubtree(live) && pastSubtree(mirror);
        continue;
      }
      if (element instanceof HTMLAnchorElement && element.hasAttribute('href')) twin.setAttribute('href', element.href);
      if (element instanceof HTMLImageElement) {
        twin.setAttribute('src', element.currentSrc || element.src);
        twin.removeAttribute('srcset');
      }
      if (element.tagName === 'PRE') blocks.push([element, twin]);
      more = live.nextNode() !== null && mirror.nextNode() !== null;
    }
    for (const element of removed) element.remove();
    for (const [element, twin] of blocks) {
      const language = /(?:^|\s)(?:language|lang)-([\w#+.-]+)/.exec(`${element.className} ${element.querySelector('code')?.className ?? ''}`);
      const code = document.createElement('code');
      code.textContent = twin.textContent;
      if (language) code.className = `language-${language[1]}`;
      twin.replaceChildren(code);
    }
    return copy;
  };
  /** The article as a reader view keeps it, headed by its own h1; undefined when Readability finds none. */
  const mainContent = (): Element | undefined => {
    const doc = document.implementation.createHTMLDocument(document.title);
    doc.replaceChild(doc.adoptNode(cleaned(document.documentElement)), doc.documentElement);
    const base = doc.createElement('base');
    base.href = location.href;
    doc.head?.prepend(base);
    const h1s = [...doc.querySelectorAll('h1')];
    // Readability makes every h1 an h2 (copying attributes): marked, they become h1s again.
    for (const h1 of h1s) h1.setAttribute('data-capture-h1', '');
    const headings = h1s.map((h1) => (h1.textContent ?? '').trim().replace(/\s+/g, ' ')).filter(Boolean);
    const article = new libs.Readability(doc, { keepClasses: true }).parse() as { title?: string; content?: string } | null;
    if (!article?.content) return undefined;
    const container = document.createElement('div');
    const template = document.createElement('template');
    template.innerHTML = article.content;
    for (const demoted of template.content.querySelectorAll('[data-capture-h1]')) {
      const h1 = document.createElement('h1');
      h1.append(...demoted.childNodes);
      demoted.replaceWith(h1);
    }
    if (!template.content.querySelector('h1')) {
      // Readability drops the h1 that repeats the title: the article's own is the one its title names.
      const title = (article.title ?? '').trim();
      const own = headings.find((text) => title !== '' && (title.includes(text) || text.includes(title))) ?? (title || (headings[0] ?? ''));
      if (own !== '') container.append(Object.assign(document.createElement('h1'), { textContent: own }));
    }
    container.append(template.content);
    return container;
  };
  const body = (request.content === 'main' ? mainContent() : undefined) ?? (document.body ? cleaned(document.body) : document.createElement('body'));
  if (request.format === 'html') return cap(body.innerHTML);
  const turndown = new libs.TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  turndown.use(libs.turndownPluginGfm.gfm);
  return cap((turndown.turndown(body) as string).trim() + '\n');
}
