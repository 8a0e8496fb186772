import type { Request } from 'playwright-core';

/** Whether a request is the top frame's own document: refusing it would leave nothing to capture. */
export function isPageDocument(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    // A service worker's request has no frame.
    return false;
  }
}
