import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { insetSides } from '../../src/core/schema/shot-params.js';

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * `rect` with `inset`'s CSS px taken off its sides (a negative inset adds page around it, but not
 * past the page's top and left edges, as `padding` does). An inset that leaves nothing is the caller's mistake.
 */
export function insetRect(rect: Rect, inset: number | number[] | undefined): Rect {
  if (inset === undefined) return rect;
  const { top, right, bottom, left } = insetSides(inset);
  const x = Math.max(0, rect.x + left);
  const y = Math.max(0, rect.y + top);
  const width = rect.x + rect.width - right - x;
  const height = rect.y + rect.height - bottom - y;
  if (width < 1 || height < 1) {
    throw captureErrors.invalidParameter('inset', `Invalid parameter 'inset': ${String(inset)} px off the sides leaves nothing of the ${rect.width}x${rect.height} region`, allowedFor('inset'));
  }
  return { x, y, width, height };
}
