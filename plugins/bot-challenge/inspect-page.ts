/** The page markers to look for: per page signature, its markers in order (null for a header marker). */
export interface PageProbe {
  pages: ({ selector: string } | { title: string } | { text: string } | null)[][];
  widgets: string[];
}

/** What the page shows: per page signature, the indexes of its markers found; the first widget that is a wall. */
export interface PageFindings {
  pages: number[][];
  wall: { widget: number; why: 'covers half of the viewport' | 'only content' } | null;
}

/** Characters of the visible text the text markers look at: block pages say who they are at once. */
const TEXT_PREFIX = 4_000;

/**
 * Runs in the page (serialised: self-contained). A few selector lookups, the title, the start of
 * the text, and the geometry of at most a few widgets: cheap enough for every capture.
 */
export function inspectPage(probe: PageProbe & { textPrefix: number }): PageFindings {
  const body = document.body;
  // The first characters of the text, read node by node: a huge page costs no more than a small one.
  const readText = (root: Node | null): string => {
    if (!root) return '';
    const skipped = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (skipped.test(node.parentElement?.tagName ?? '') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    let read = '';
    for (let node = walker.nextNode(); node && read.length < probe.textPrefix; node = walker.nextNode()) read += ` ${(node.nodeValue ?? '').replace(/\s+/g, ' ')}`;
    return read.replace(/\s+/g, ' ').trim();
  };
  const text = readText(body);
  const found = (marker: PageProbe['pages'][number][number]): boolean => {
    if (marker === null) return false;
    if ('selector' in marker) return document.querySelector(marker.selector) !== null;
    if ('title' in marker) return new RegExp(marker.title, 'i').test(document.title.trim());
    return new RegExp(marker.text, 'i').test(text);
  };
  const pages = probe.pages.map((markers) => markers.flatMap((marker, index) => (found(marker) ? [index] : [])));
  const viewport = innerWidth * innerHeight;
  const visibleArea = (rect: DOMRect): number => {
    const width = Math.min(rect.right, innerWidth) - Math.max(rect.left, 0);
    const height = Math.min(rect.bottom, innerHeight) - Math.max(rect.top, 0);
    return width > 0 && height > 0 ? width * height : 0;
  };
  // The widget, or an overlay it sits in (a fixed layer over the page), covers half of the viewport.
  const covers = (element: Element): boolean => {
    for (let node: Element | null = element; node && node !== body; node = node.parentElement) {
      const fixed = node === element || getComputedStyle(node).position === 'fixed';
      if (fixed && visibleArea(node.getBoundingClientRect()) * 2 >= viewport) return true;
    }
    return false;
  };
  // Nothing else to read or fill in: little text besides it and no form control outside it.
  const onlyContent = (element: Element): boolean => {
    if (text.length - readText(element).length > 300) return false;
    const controls = document.querySelectorAll('input:not([type="hidden"]), textarea, select');
    return [...controls].every((control) => element.contains(control) || control.getClientRects().length === 0);
  };
  let wall: PageFindings['wall'] = null;
  probe.widgets.some((selector, widget) =>
    [...document.querySelectorAll(selector)].slice(0, 3).some((element) => {
      if (element.getClientRects().length === 0) return false;
      if (covers(element)) wall = { widget, why: 'covers half of the viewport' };
      else if (onlyContent(element)) wall = { widget, why: 'only content' };
      return wall !== null;
    }),
  );
  return { pages, wall };
}

export { TEXT_PREFIX };
