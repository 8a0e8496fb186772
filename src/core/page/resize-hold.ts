/**
 * Chromium renders a beyond-viewport screenshot by resizing the page's view for the shot, and the
 * page gets `resize` events for it (sometimes with a 1x1 window): a layout that rearranges itself
 * on `resize` (Doxygen's navigation pane folds) is then taken rearranged. Every capture page holds
 * back `resize` events while `Symbol.for(HOLD_RESIZE_KEY)` is set on `window`: a listener that
 * runs before any of the page's own (registered first, in the capture phase) stops them.
 */
export const HOLD_RESIZE_KEY = 'capture-engine.hold-resize';

function holdResize(key: string): void {
  const hold = Symbol.for(key);
  window.addEventListener(
    'resize',
    (event) => {
      if ((window as unknown as Record<symbol, boolean | undefined>)[hold]) event.stopImmediatePropagation();
    },
    { capture: true },
  );
}

/** The listener as init-script source. */
export const HOLD_RESIZE_SCRIPT = `(${holdResize.toString()})(${JSON.stringify(HOLD_RESIZE_KEY)});`;
