/**
 * In the page: keeps an ARIA snapshot of `root` within `maxChars` before Playwright builds it, as
 * Playwright's `ariaSnapshot()` has no bound of its own and would carry a page's megabytes of text
 * whole across to the service. Walks the tree in document order (open shadow roots included),
 * counting each element's line and names and each text; past the budget, the text it reaches is
 * cut to what is left, and everything after it is taken out of the snapshot for the moment:
 * elements get `aria-hidden`, loose texts are emptied. Returns whether anything was cut; what was
 * changed is kept under `key` for `restoreAriaBudget`, which puts the page back as it was.
 *
 * A text is changed only up to `MAX_EDITED_TEXT` characters: Chromium lays a changed text out again,
 * twice with the restore, and megabytes of laid-out text take the renderer over its memory limit
 * (a 20 MB paragraph did). A longer text that crosses the budget hides its element, and a copy of
 * the element with the text's first characters stands in for it; one that is the root's own, or
 * loose after the cut, is left to the cut after the snapshot.
 */
export function ariaBudgetInPage(root: Element, { maxChars, key }: { maxChars: number; key: string }): boolean {
  /** What one element adds to the YAML besides its names and texts: its role, a dash and the indent. */
  const LINE_CHARS = 24;
  const NAMES = ['aria-label', 'aria-description', 'alt', 'title', 'placeholder', 'value', 'href'];
  const UNREAD = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT']);
  const MAX_EDITED_TEXT = 65_536;
  const changes: AriaBudgetChange[] = [];
  let left = maxChars;
  const stack: Array<[Node, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [Node, number];
    if (node instanceof Text) {
      if (node.data.length <= left) {
        left -= node.data.length;
        continue;
      }
      if (node.data.length <= MAX_EDITED_TEXT) {
        changes.push({ node, data: node.data });
        node.data = node.data.slice(0, left);
      } else if (node.parentElement && node.parentElement !== root) {
        const element = node.parentElement;
        const standIn = element.cloneNode(false) as Element;
        standIn.textContent = node.data.slice(0, Math.min(left, MAX_EDITED_TEXT));
        element.before(standIn);
        changes.push({ node: element, hidden: element.getAttribute('aria-hidden') }, { added: standIn });
        element.setAttribute('aria-hidden', 'true');
      }
      break;
    }
    if (!(node instanceof Element) || UNREAD.has(node.tagName)) continue;
    const cost = LINE_CHARS + 2 * depth + NAMES.reduce((sum, name) => sum + (node.getAttribute(name)?.length ?? 0), 0);
    if (cost > left) {
      changes.push({ node, hidden: node.getAttribute('aria-hidden') });
      node.setAttribute('aria-hidden', 'true');
      break;
    }
    left -= cost;
    const children = [...(node.shadowRoot?.childNodes ?? []), ...node.childNodes];
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i] as Node, depth + 1]);
  }
  // What is still on the stack is everything after the cut: the following siblings of the cut and of each of its ancestors.
  for (const [node] of stack) {
    if (node instanceof Text && node.data && node.data.length <= MAX_EDITED_TEXT) {
      changes.push({ node, data: node.data });
      node.data = '';
    } else if (node instanceof Element) {
      changes.push({ node, hidden: node.getAttribute('aria-hidden') });
      node.setAttribute('aria-hidden', 'true');
    }
  }
  if (changes.length === 0) return false;
  Object.defineProperty(window, key, { value: changes, configurable: true });
  return true;
}

/** A change `ariaBudgetInPage` made: a text cut, an element hidden, a stand-in added. */
type AriaBudgetChange = { node: Element; hidden: string | null } | { node: Text; data: string } | { added: Element };

/** In the page: undoes what `ariaBudgetInPage` changed under `key`, last change first. */
export function restoreAriaBudget(key: string): void {
  const changes = (window as unknown as Record<string, AriaBudgetChange[] | undefined>)[key] ?? [];
  for (const change of changes.reverse()) {
    if ('added' in change) change.added.remove();
    else if ('data' in change) change.node.data = change.data;
    else if (change.hidden === null) change.node.removeAttribute('aria-hidden');
    else change.node.setAttribute('aria-hidden', change.hidden);
  }
  delete (window as unknown as Record<string, unknown>)[key];
}
