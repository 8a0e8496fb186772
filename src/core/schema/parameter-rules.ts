import { CaptureError } from '../errors/catalogue.js';
import { IMAGE_FORMATS, VIDEO_FORMATS, isImageFormat, isVideoFormat, type CaptureFormat } from './formats.js';
import { CaptureParamsSchema, type CaptureParams } from './capture-schema.js';
import { checkPdfMetadataCombinations, inches, LARGEST_PAPER_INCHES } from './pdf-params.js';
import { documentPath, type DocumentFileParam } from './document-params.js';
import { deviceNamed } from './devices.js';
import { checkShotCombinations } from './shot-params.js';
import { checkDownloadCombinations } from './download-params.js';
import { checkHeaderScopeCombinations } from './header-scope-params.js';
import { checkInjectionCombinations } from './injection-params.js';
import { checkOutputCombinations } from './output-params.js';
import { checkPdfFinishCombinations } from './pdf-finish-params.js';

type Given = Map<keyof CaptureParams, unknown>;

/** The largest `device_scale_factor` the schema takes; every tier's own cap is within it. */
const LARGEST_SCALE = (CaptureParamsSchema.properties['device_scale_factor' as keyof CaptureParams] as { maximum?: number }).maximum ?? 4;

/** As docs/parameters.md says: a video format alone implies `scroll`; a video scenario alone implies `mp4`. */
export function applyImpliedDefaults(given: Given): void {
  const device = typeof given.get('device') === 'string' ? deviceNamed(given.get('device') as string) : undefined;
  if (device) {
    const implied: [keyof CaptureParams, unknown][] = [
      ['viewport_width', device.viewport.width],
      ['viewport_height', device.viewport.height],
      // A device's own scale is no way past the schema's largest: Galaxy S9+ (4.5) would be refused on every tier.
      ['device_scale_factor', Math.min(device.deviceScaleFactor, LARGEST_SCALE)],
      ['user_agent', device.userAgent],
      ['is_mobile', device.isMobile],
      ['has_touch', device.hasTouch],
    ];
    // What the caller gave wins over the device's.
    for (const [name, value] of implied) if (!given.has(name)) given.set(name, value);
  }
  const format = given.get('format') as CaptureFormat | undefined;
  const scenario = given.get('scenario') as CaptureParams['scenario'] | undefined;
  if (format && isVideoFormat(format) && scenario === undefined) given.set('scenario', 'scroll');
  if ((scenario === 'scroll' || scenario === 'record') && format === undefined) given.set('format', 'mp4');
}

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

const CACHE_OPTIONS = ['cache_ttl', 'cache_stale_ttl', 'cache_key', 'fresh'] as const;
const CLIP = ['clip_x', 'clip_y', 'clip_width', 'clip_height'] as const;
const IMAGE_SIZE = ['image_width', 'image_height'] as const;
/** ffmpeg's palette filters make every gif frame a full image: longer gifs are better as a video. */
export const MAX_GIF_SECONDS = 30;
const quoted = (formats: readonly string[]): string => formats.map((format) => `'${format}'`).join(', ');

/**
 * Whether a parameter was given a value other than its default. Defaults are never refused:
 * parsed parameters are parsed again (for the tier) with every default filled in.
 */
function chosen(given: Given, name: keyof CaptureParams): boolean {
  return given.has(name) && given.get(name) !== (CaptureParamsSchema.properties[name] as { default?: unknown }).default;
}

function rendersMarkdown(given: Given): boolean {
  if (given.has('markdown')) return true;
  const names = new Set(((given.get('files') ?? []) as DocumentFileParam[]).map(({ name }) => documentPath(name)));
  return names.has('index.md') && !names.has('index.html');
}

/** Cross-parameter rules; every refusal names the parameters involved. */
export function checkCombinations(given: Given, missing: (name: keyof CaptureParams, message: string) => CaptureError): void {
  const format = (given.get('format') ?? 'png') as CaptureFormat;
  const scenario = (given.get('scenario') ?? 'static') as CaptureParams['scenario'];
  const video = isVideoFormat(format);
  if (video !== (scenario !== 'static')) {
    throw incompatible(
      video
        ? `format '${format}' is a video and needs scenario 'scroll' or 'record', not '${scenario}'`
        : `scenario '${scenario}' makes a video and needs format ${quoted(VIDEO_FORMATS)}, not '${format}'`,
      ['format', 'scenario'],
    );
  }
  // A best-effort picture may be of an unfinished page: serving it from the cache for a day would
  // hide that from every later caller.
  if (given.get('best_effort') === true && given.get('cache') === true) throw incompatible('best_effort captures may be incomplete and are never cached: add cache=false', ['best_effort', 'cache']);
  for (const report of ['diagnostics', 'har'] as const) {
    if (given.get(report) !== true) continue;
    // An async capture's status is JSON: it carries them.
    if (given.get('response_type') !== 'json' && given.get('async') !== true) throw incompatible(`${report} is answered in the JSON result: add response_type=json (or async=true)`, [report, 'response_type']);
    // A cached answer would report another capture's page.
    if (given.get('cache') === true) throw incompatible(`${report} describes this capture's page and is never cached: add cache=false`, [report, 'cache']);
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
  const regionName = region.find((name) => name !== 'full_page' || format !== 'pdf');
  if (regionName !== undefined && (video || format === 'pdf')) throw incompatible(`${regionName} applies to ${quoted(IMAGE_FORMATS)} only, not to format '${format}'`, [regionName, 'format']);
  if (given.get('omit_background') === true && format !== 'png' && format !== 'webp' && format !== 'avif') {
    throw incompatible(`omit_background needs a transparent image: png, webp or avif, not '${format}'`, ['omit_background', 'format']);
  }
  const scrollControl = (['scroll_easing', 'scroll_start_delay', 'scroll_back'] as const).find((name) => chosen(given, name));
  if (scrollControl !== undefined && given.get('scenario') !== 'scroll') throw incompatible(`${scrollControl} applies to scenario 'scroll'`, [scrollControl, 'scenario']);
  if (given.has('video_clock') && !video) throw incompatible(`video_clock applies to videos (mp4, webm, gif), not to format '${format}'`, ['video_clock', 'format']);
  if (given.has('fps') && format !== 'mp4' && format !== 'webm') throw incompatible(`fps applies to mp4 and webm${format === 'gif' ? '; a gif has gif_fps' : `, not to format '${format}'`}`, ['fps', 'format']);
  // A png has no quality either, but the original interface takes it there and ignores it.
  // The listener is a script in the page; with its scripts off no listener runs, so the event would be waited for to the timeout.
  if (given.has('wait_for_event') && given.get('javascript') === false) throw incompatible('wait_for_event listens for the event with a script in the page, and javascript=false runs none: give one', ['wait_for_event', 'javascript']);
  if (chosen(given, 'caret') && !isImageFormat(format)) throw incompatible(`caret applies to ${quoted(IMAGE_FORMATS)} only, not to format '${format}'`, ['caret', 'format']);
  if (chosen(given, 'quality') && !isImageFormat(format) && !video) throw incompatible(`quality applies to images and videos, not to format '${format}'`, ['quality', 'format']);
  if (chosen(given, 'scroll_into_view_offset') && !given.has('scroll_into_view')) throw incompatible('scroll_into_view_offset needs scroll_into_view', ['scroll_into_view_offset', 'scroll_into_view']);
  const scrolledPast = given.has('scroll_into_view') ? region[0] : undefined;
  if (scrolledPast !== undefined) throw incompatible(`scroll_into_view shows part of the viewport; ${scrolledPast} chooses what to capture: give one`, ['scroll_into_view', scrolledPast]);
  if (given.has('scroll_into_view') && !isImageFormat(format)) throw incompatible(`scroll_into_view applies to ${quoted(IMAGE_FORMATS)} only, not to format '${format}'`, ['scroll_into_view', 'format']);
  const aroundSelector = (['selector_all', 'padding'] as const).find((name) => chosen(given, name));
  if (aroundSelector !== undefined && !given.has('selector')) throw incompatible(`${aroundSelector} applies to a selector shot: it needs selector`, [aroundSelector, 'selector']);
  const sized = IMAGE_SIZE.find((name) => given.has(name));
  if (sized !== undefined && !isImageFormat(format)) throw incompatible(`${sized} applies to ${quoted(IMAGE_FORMATS)} only, not to format '${format}'`, [sized, 'format']);
  if (sized === undefined && chosen(given, 'image_fit')) throw incompatible('image_fit applies to a resized image: it needs image_width or image_height', ['image_fit', 'image_width']);
  const cached = given.get('cache') === true;
  if (cached && given.get('async') === true) throw incompatible('cache answers from stored captures; async=true queues a new one: give one', ['cache', 'async']);
  const cacheOption = CACHE_OPTIONS.find((name) => chosen(given, name));
  if (cacheOption !== undefined && !cached) throw incompatible(`${cacheOption} applies to cached captures: it needs cache=true`, [cacheOption, 'cache']);
  const pdfOption = [...given.keys()].find((name) => name.startsWith('pdf_') && chosen(given, name));
  if (pdfOption !== undefined && format !== 'pdf') throw incompatible(`${pdfOption} applies to format 'pdf', not '${format}'`, [pdfOption, 'format']);
  if (given.has('pdf_width') !== given.has('pdf_height')) {
    const name = given.has('pdf_width') ? 'pdf_height' : 'pdf_width';
    throw missing(name, `pdf_width and pdf_height go together; '${name}' is missing`);
  }
  for (const name of ['pdf_width', 'pdf_height'] as const) {
    const value = given.get(name) as string | undefined;
    if (value !== undefined && !(inches(value) > 0 && inches(value) <= LARGEST_PAPER_INCHES)) throw missing(name, `${name} must be more than 0 and at most ${LARGEST_PAPER_INCHES} in, not ${value}`);
  }
  const paper = (['pdf_paper', 'pdf_width'] as const).find((name) => chosen(given, name));
  if (given.get('pdf_single_page') === true && paper !== undefined) throw incompatible(`pdf_single_page sizes its page to the document; ${paper} chooses a paper: give one`, ['pdf_single_page', paper]);
  if (given.has('markdown_template') && !rendersMarkdown(given) && !given.has('pdf_merge')) {
    throw incompatible('markdown_template is the page of a Markdown document: it needs markdown, or files with an index.md and no index.html', ['markdown_template', 'markdown']);
  }
  if (given.has('upload_url') && given.get('cache') === true) throw incompatible('upload_url sends each capture to your storage; a cached answer is not captured again', ['upload_url', 'cache']);
  if (given.has('webhook_url') && given.get('async') !== true) throw incompatible('webhook_url reports an asynchronous capture: it needs async=true', ['webhook_url', 'async']);
  checkShotCombinations(given);
  checkDownloadCombinations(given);
  checkHeaderScopeCombinations(given);
  checkInjectionCombinations(given);
  const duration = given.get('duration') as number | undefined;
  if (format === 'gif' && duration !== undefined && duration > MAX_GIF_SECONDS) {
    throw incompatible(`a gif lasts at most ${MAX_GIF_SECONDS} s (got ${duration} s); use mp4 or webm for longer videos`, ['duration', 'format']);
  }
  checkOutputCombinations(given, missing);
  checkPdfFinishCombinations(given);
  checkPdfMetadataCombinations(given);
}
