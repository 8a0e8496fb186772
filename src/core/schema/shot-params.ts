import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { IMAGE_FORMATS, isImageFormat, type CaptureFormat } from './formats.js';

/** Playwright's default `maskColor`. */
export const DEFAULT_MASK_COLOR = '#FF00FF';
/** Most boxes one capture paints: `mask=*` on a page of a hundred thousand elements stays one overlay's work. */
export const MAX_MASKED_ELEMENTS = 1_000;
/** Most frames one `mask` selector looks into, and frames within frames it goes through (`a >> b >> .ad`). */
export const MAX_MASKED_FRAMES = 20;
export const MAX_MASK_FRAME_DEPTH = 3;
/** Most CSS px one side of `inset` takes off (or, negative, adds). */
const MAX_INSET = 1000;
const INSET_PX = Type.Integer({ minimum: -MAX_INSET, maximum: MAX_INSET });
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
      description: `Comma-separated CSS selectors whose elements are covered by a box of mask_color in the image (viewport, full-page, clip and element shots), as Playwright's \`mask\`; unlike hide_selectors the page does not show through. \`frame >> selector\` covers the elements inside the frames \`frame\` matches, same-origin or not, as Playwright's frame locators (\`iframe#pay >> .card\`; frames in frames with more \`>>\`, at most ${MAX_MASK_FRAME_DEPTH} deep, ${MAX_MASKED_FRAMES} frames per selector). At most ${MAX_MASKED_ELEMENTS} elements are covered.`,
    }),
  ),
  mask_color: Type.Optional(Type.String({ pattern: HEX_COLOR, maxLength: 9, description: `With mask: the colour of the boxes, \`#rgb\`, \`#rgba\`, \`#rrggbb\` or \`#rrggbbaa\`. Default ${DEFAULT_MASK_COLOR}, as Playwright's.` })),
  inset: Type.Optional(
    Type.Union([INSET_PX, Type.Array(INSET_PX, { minItems: 1, maxItems: 4 })], {
      description:
        'With selector or clip_*: CSS px taken off the sides of the region, after padding (a negative value adds that much page around it, but not past its top and left edges). One to four values as CSS `margin` takes them: `10` every side, `10 20` top and bottom then left and right, `10 20 30` top, left and right, bottom, `10 20 30 40` top, right, bottom, left (spaces or commas; a JSON array too), or capture-website\'s object `{"top": 10, "left": 5}`, a side it does not name 0.',
    }),
  ),
};

export const SHOT_ALLOWED_TEXT: Partial<Record<keyof typeof SHOT_PROPERTIES, string>> = {
  mask_color: 'a hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa',
  inset: `1 to 4 integers -${MAX_INSET}..${MAX_INSET} (CSS px: all sides; top/bottom and left/right; top, left/right, bottom; top, right, bottom, left), or an object of top, right, bottom and left`,
};

/** A `mask` selector's steps: the frames it enters, in order, then the elements' selector. */
export const maskSteps = (selector: string): string[] => selector.split('>>').map((step) => step.trim());

export const SHOT_CHECKS = {
  mask: (list: string): string | undefined => {
    for (const selector of list.split(',')) {
      const steps = maskSteps(selector);
      if (steps.length > 1 && steps.some((step) => step === '')) return `'${selector.trim()}' has an empty step around >>`;
      if (steps.length > MAX_MASK_FRAME_DEPTH + 1) return `'${selector.trim()}' enters ${steps.length - 1} frames, at most ${MAX_MASK_FRAME_DEPTH}`;
    }
    return undefined;
  },
};

const SIDES = ['top', 'right', 'bottom', 'left'] as const;

/**
 * `inset` as a query or form carries it, `10`, `10 20` or `10,20,30,40`, or as capture-website's
 * object, `{"top": 10, "left": 5}` (a side not named is 0); undefined when it is none of these.
 */
export const SHOT_READERS = {
  inset: (value: unknown): unknown => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return Object.keys(value).every((key) => (SIDES as readonly string[]).includes(key)) ? SIDES.map((side) => (value as Record<string, unknown>)[side] ?? 0) : undefined;
    }
    if (typeof value !== 'string') return value;
    const parts = value.trim().split(/\s*,\s*|\s+/);
    if (!parts.every((part) => /^-?\d{1,5}$/.test(part))) return undefined;
    const numbers = parts.map(Number);
    return numbers.length === 1 ? numbers[0] : numbers;
  },
};

export interface InsetSides {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** The px off each side that `inset`'s one to four values say, in CSS `margin`'s order. */
export function insetSides(inset: number | number[]): InsetSides {
  const [top = 0, right = top, bottom = top, left = right] = typeof inset === 'number' ? [inset] : inset;
  return { top, right, bottom, left };
}

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
