import { CaptureError } from './errors.js';
import { isVideoFormat, type CaptureFormat } from './formats.js';
import type { CaptureParams } from './schema.js';

type Given = Map<keyof CaptureParams, unknown>;

/** As the README says: a video format alone implies `scroll`; a video scenario alone implies `mp4`. */
export function applyImpliedDefaults(given: Given): void {
  const format = given.get('format') as CaptureFormat | undefined;
  const scenario = given.get('scenario') as CaptureParams['scenario'] | undefined;
  if (format && isVideoFormat(format) && scenario === undefined) given.set('scenario', 'scroll');
  if ((scenario === 'scroll' || scenario === 'record') && format === undefined) given.set('format', 'mp4');
}

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

const CLIP = ['clip_x', 'clip_y', 'clip_width', 'clip_height'] as const;

/** Cross-parameter rules; every refusal names the parameters involved. */
export function checkCombinations(given: Given, missing: (name: keyof CaptureParams, message: string) => CaptureError): void {
  const format = (given.get('format') ?? 'png') as CaptureFormat;
  const scenario = (given.get('scenario') ?? 'static') as CaptureParams['scenario'];
  const video = isVideoFormat(format);
  if (video !== (scenario !== 'static')) {
    throw incompatible(
      video
        ? `format '${format}' is a video and needs scenario 'scroll' or 'record', not '${scenario}'`
        : `scenario '${scenario}' makes a video and needs format 'mp4' or 'webm', not '${format}'`,
      ['format', 'scenario'],
    );
  }
  if (video && given.get('full_page') === true) throw incompatible(`full_page applies to images only, not to format '${format}'`, ['full_page', 'format']);
  const hasLatitude = given.has('latitude');
  if (hasLatitude !== given.has('longitude')) {
    const name = hasLatitude ? 'longitude' : 'latitude';
    throw missing(name, `latitude and longitude go together; '${name}' is missing`);
  }
  const clipped = CLIP.filter((name) => given.has(name));
  if (clipped.length > 0 && clipped.length < CLIP.length) {
    const name = CLIP.find((part) => !given.has(part)) as (typeof CLIP)[number];
    throw missing(name, `clip_x, clip_y, clip_width and clip_height go together; '${name}' is missing`);
  }
  const region = [...(clipped.length > 0 ? ['clip_x'] : []), ...(given.has('selector') ? ['selector'] : []), ...(given.get('full_page') === true ? ['full_page'] : [])];
  if (region.length > 1) throw incompatible(`${region.join(' and ')} each choose what to capture; give one`, region);
  if (video && region.length > 0) throw incompatible(`${region[0]} applies to images only, not to format '${format}'`, [region[0] as string, 'format']);
  if (given.get('omit_background') === true && format === 'jpg') throw incompatible('jpg has no transparency: omit_background needs png or webp', ['omit_background', 'format']);
}
