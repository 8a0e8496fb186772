import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { IMAGE_FORMATS, isImageFormat, type CaptureFormat } from './formats.js';

/** Playwright's default `maskColor`. */
export const DEFAULT_MASK_COLOR = '#FF00FF';
/** Most boxes one capture paints: `mask=*` on a page of a hundred thousand elements stays one overlay's work. */
export const MAX_MASKED_ELEMENTS = 1_000;
const HEX_COLOR = '^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$';

/**
 * What is painted over or trimmed from a still shot: boxes over elements (Playwright's `mask`) and
 * an inset of a clip or element shot. Part of the one request schema.
 */
export const SHOT_PROPERTIES = {
  mask: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: `Comma-separated CSS selectors whose elements are covered by a box of mask_color in the image (viewport, full-page, clip and element shots), as Playwright's \`mask\`; unlike hide_selectors the page does not show through. At most ${MAX_MASKED_ELEMENTS} elements are covered.`,
    }),
  ),
  mask_color: Type.Optional(Type.String({ pattern: HEX_COLOR, maxLength: 9, description: `With mask: the colour of the boxes, \`#rgb\`, \`#rgba\`, \`#rrggbb\` or \`#rrggbbaa\`. Default ${DEFAULT_MASK_COLOR}, as Playwright's.` })),
  inset: Type.Optional(
    Type.Integer({
      minimum: -1000,
      maximum: 1000,
      description: 'With selector or clip_*: CSS px taken off each side of the region (a negative value adds that much page around it, but not past its top and left edges), after padding.',
    }),
  ),
};

export const SHOT_ALLOWED_TEXT: Partial<Record<keyof typeof SHOT_PROPERTIES, string>> = {
  mask_color: 'a hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa',
};

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

/** Cross-parameter rules of the shot options; each refusal names the parameters involved. */
export function checkShotCombinations(given: Map<string, unknown>): void {
  const format = (given.get('format') ?? 'png') as CaptureFormat;
  if (given.has('mask_color') && !given.has('mask')) throw incompatible('mask_color is the colour of mask: it needs mask', ['mask_color', 'mask']);
  if (given.has('inset') && !given.has('selector') && !given.has('clip_x')) throw incompatible('inset shrinks or grows a clip or element shot: it needs selector or clip_x, clip_y, clip_width and clip_height', ['inset', 'selector']);
  if (given.has('mask') && !isImageFormat(format)) throw incompatible(`mask paints over a still image: ${IMAGE_FORMATS.join(', ')}, not format '${format}'`, ['mask', 'format']);
}
