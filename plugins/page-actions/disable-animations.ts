/**
 * In the page: Playwright's `animations: "disabled"` (its screenshotter's `inPagePrepareForScreenshots`).
 * A finite animation jumps to its end and an infinite one goes back to where it started (the page
 * as it is without it), in the document and in every open shadow root, which `document.getAnimations()`
 * does not reach. One the page paused (`playbackRate` 0) stays where the page left it. An animation
 * or transition that starts later, until the shot, is treated the same when it starts.
 */
export function disableAnimations(): void {
  const roots: (Document | ShadowRoot)[] = [];
  const collect = (root: Document | ShadowRoot): void => {
    roots.push(root);
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
      const shadow = node instanceof Element ? node.shadowRoot : null;
      if (shadow) collect(shadow);
    }
  };
  collect(document);
  const cancelled = new WeakSet<Animation>();
  const settle = (root: Document | ShadowRoot): void => {
    for (const animation of root.getAnimations()) {
      if (!animation.effect || animation.playbackRate === 0 || cancelled.has(animation)) continue;
      try {
        if (Number.isFinite(animation.effect.getComputedTiming().endTime)) animation.finish();
        else {
          animation.cancel();
          cancelled.add(animation);
        }
      } catch {
        // An animation that cannot be finished (no end) or cancelled is left as it is.
      }
    }
  };
  for (const root of roots) {
    settle(root);
    root.addEventListener('transitionrun', () => settle(root));
    root.addEventListener('animationstart', () => settle(root));
  }
}
