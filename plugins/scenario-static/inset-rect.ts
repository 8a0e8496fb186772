import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * `rect` with `inset` CSS px taken off each side (a negative inset adds page around it, but not past
 * the page's top and left edges, as `padding` does). An inset that leaves nothing is the caller's mistake.
 */
export function insetRect(rect: Rect, inset: number | undefined): Rect {
  if (inset === undefined || inset === 0) return rect;
  const x = Math.max(0, rect.x + inset);
  const y = Math.max(0, rect.y + inset);
  const width = rect.x + rect.width - inset - x;
  const height = rect.y + rect.height - inset - y;
  if (width < 1 || height < 1) {
    throw captureErrors.invalidParameter('inset', `Invalid parameter 'inset': ${inset} px off each side leaves nothing of the ${rect.width}x${rect.height} region`, allowedFor('inset'));
  }
  return { x, y, width, height };
}
