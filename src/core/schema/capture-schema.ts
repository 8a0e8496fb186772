import Type, { type Static } from 'typebox';
import { FORMATS, type CaptureFormat } from './formats.js';
import { PAGE_OPTION_PROPERTIES } from './page-option-params.js';
import { IMAGE_SIZE_PROPERTIES } from './image-size-params.js';
import { BLOCKING_PROPERTIES } from './blocking-params.js';
import { INTERCEPT_PROPERTIES } from './intercept-params.js';
import { VIDEO_CONTROL_PROPERTIES } from './video-params.js';
import { ACTION_PROPERTIES } from './action-params.js';
import { PDF_OPTION_PROPERTIES } from './pdf-params.js';
import { PDF_FINISH_PROPERTIES } from './pdf-finish-params.js';
import { PDF_MERGE_PROPERTIES } from './pdf-merge-params.js';
import { DOCUMENT_PROPERTIES } from './document-params.js';
import { READINESS_PROPERTIES } from './readiness-params.js';
import { DOWNLOAD_PROPERTIES } from './download-params.js';
import { HEADER_SCOPE_PROPERTIES } from './header-scope-params.js';
import { INJECTION_PROPERTIES } from './injection-params.js';
import { MEDIA_FEATURE_PROPERTIES } from './media-feature-params.js';
import { SHOT_PROPERTIES } from './shot-params.js';
import { OUTPUT_PROPERTIES } from './output-params.js';
import { DEFAULTS } from '../defaults.js';

export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'] as const;
/** Paper sizes Chromium prints, in inches (width × height, portrait). */
export const PDF_PAPER_INCHES = {
  A3: [11.69, 16.54],
  A4: [8.27, 11.69],
  A5: [5.83, 8.27],
  Letter: [8.5, 11],
  Legal: [8.5, 14],
  Tabloid: [11, 17],
} as const satisfies Record<string, readonly [number, number]>;
const PDF_PAPERS = Object.keys(PDF_PAPER_INCHES) as (keyof typeof PDF_PAPER_INCHES)[];

/**
 * The one request schema: names, types, ranges, defaults and descriptions of every capture parameter.
 * The HTTP parser, the library's `capture()`, the JSON Schema export and the OpenAPI document all read it.
 */
export const CaptureParamsSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 8192, description: 'Page to capture: an http or https URL. Or give html, markdown or files instead.', examples: ['https://example.com'] })),
    ...DOCUMENT_PROPERTIES,
    ...DOWNLOAD_PROPERTIES,
    format: Type.Enum(Object.keys(FORMATS) as CaptureFormat[], {
      default: 'png',
      description:
        'Output format: png, jpg (`jpeg` is read as jpg), webp, avif images; pdf, the page printed by Chromium; mp4, webm and animated gif, videos of a scroll or record scenario; markdown, html, text, links, metadata, aria and scrape, what the settled page says.',
    }),
    ...OUTPUT_PROPERTIES,
    viewport_width: Type.Integer({ minimum: 100, maximum: 7680, default: DEFAULTS.viewport.width, description: 'Viewport width in px.' }),
    viewport_height: Type.Integer({ minimum: 100, maximum: 4320, default: DEFAULTS.viewport.height, description: 'Viewport height in px.' }),
    full_page: Type.Boolean({ default: false, description: 'Capture the whole page height (images only).' }),
    full_page_max_height: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 1_000_000, description: 'Tallest full-page image in px (the tier and the engine cap it); taller pages are cut and report `clipped_from`.' }),
    ),
    quality: Type.Integer({ minimum: 1, maximum: 100, default: 90, description: 'jpg/webp/avif quality; encoder quality for video; ignored for png; refused with other formats (pdf).' }),
    ...IMAGE_SIZE_PROPERTIES,
    response_type: Type.Enum(['image', 'json'], {
      default: 'image',
      description: '`image` returns the file itself; `json` stores it and returns its url.',
    }),
    block_ads: Type.Boolean({ default: false, description: 'Block advertisements and trackers.' }),
    block_cookies: Type.Boolean({ default: false, description: 'Block and dismiss cookie banners and privacy notices.' }),
    ...BLOCKING_PROPERTIES,
    ...INTERCEPT_PROPERTIES,
    hide_selectors: Type.String({ maxLength: 4096, default: '', description: 'Comma-separated CSS selectors hidden before the capture.' }),
    hide_mode: Type.Enum(['remove', 'hide'], {
      default: 'remove',
      description: '`remove` takes hidden elements out of the layout (what follows moves up); `hide` keeps their space.',
    }),
    ...SHOT_PROPERTIES,
    scenario: Type.Enum(['static', 'scroll', 'record'], {
      default: 'static',
      description: '`scroll` renders a scrolling animation, `record` records the live page.',
    }),
    duration: Type.Integer({ minimum: 1, maximum: 1800, default: 5, description: 'Video length in seconds (tier maximum applies).' }),
    scroll_delay: Type.Integer({ minimum: 0, maximum: 60000, default: 500, description: 'Pause between scroll steps in ms.' }),
    scroll_by: Type.Integer({ minimum: 1, maximum: 100000, default: 1000, description: 'Pixels per scroll step.' }),
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90, description: 'Geolocation latitude (PRO and ENTERPRISE).' })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180, description: 'Geolocation longitude (PRO and ENTERPRISE).' })),
    wait_until: Type.Enum([...WAIT_UNTIL], { default: 'domcontentloaded', description: 'When the page counts as ready.' }),
    delay: Type.Integer({ minimum: 0, maximum: 60000, default: 0, description: 'Extra wait in ms after the page is ready and cleaned.' }),
    ...READINESS_PROPERTIES,
    ...PAGE_OPTION_PROPERTIES,
    ...MEDIA_FEATURE_PROPERTIES,
    ...HEADER_SCOPE_PROPERTIES,
    ...ACTION_PROPERTIES,
    ...INJECTION_PROPERTIES,
    pdf_paper: Type.Enum([...PDF_PAPERS], { default: 'A4', description: 'Paper size of a pdf.' }),
    pdf_landscape: Type.Boolean({ default: false, description: 'Print a pdf in landscape orientation.' }),
    pdf_print_background: Type.Boolean({ default: true, description: 'Print backgrounds (colours and images) into a pdf.' }),
    ...PDF_OPTION_PROPERTIES,
    ...PDF_FINISH_PROPERTIES,
    ...PDF_MERGE_PROPERTIES,
    ...VIDEO_CONTROL_PROPERTIES,
    gif_fps: Type.Integer({ minimum: 1, maximum: 30, default: 10, description: 'Frames per second of a gif (at most 30 s long).' }),
    cache: Type.Boolean({
      default: false,
      description: 'HTTP: answer from the result cache when an identical capture of this account is stored, else capture and store it. The default on render links.',
    }),
    cache_ttl: Type.Integer({ minimum: 60, maximum: 2_592_000, default: 86_400, description: 'With cache: seconds a cached capture is served for.' }),
    cache_stale_ttl: Type.Integer({
      minimum: 0,
      maximum: 2_592_000,
      default: 0,
      description: 'With cache: seconds after cache_ttl during which the old capture is still served (`X-Cache: STALE`) while one background capture replaces it.',
    }),
    cache_key: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'With cache: a string of yours mixed into the cache key, to keep several entries for the same parameters.' })),
    fresh: Type.Boolean({ default: false, description: 'With cache: capture again even when cached, and replace the entry.' }),
    async: Type.Boolean({ default: false, description: 'HTTP: answer 202 at once and capture on a worker; poll `status_url` or give `webhook_url`. Needs Redis (CAPTURE_REDIS_URL).' }),
    webhook_url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'With async=true: an http(s) URL that receives the final status as a POST signed with the webhook secret of its account (webhook-signature as in Standard Webhooks, and X-Capture-Signature).' }),
    ),
    upload_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: "A presigned PUT URL of yours (S3, GCS, R2, Azure SAS): the finished file is PUT there with its Content-Type, with retries, before the answer (or the async status) says `uploaded: true`. The service never holds your storage's credentials.",
      }),
    ),
  },
  { additionalProperties: true },
);

export type CaptureParams = Static<typeof CaptureParamsSchema>;
/** An uploaded file as a library caller may pass it: its content as text or bytes. */
export interface DocumentFileInput {
  name: string;
  content: string | Uint8Array;
  encoding?: 'utf8' | 'base64';
  type?: string;
}

/**
 * What a library caller passes: one of `url`, `html`, `markdown` or `files`, and any subset of the
 * other parameters, raw or typed.
 */
export type CaptureInput = Partial<Record<Exclude<keyof CaptureParams, 'files'>, unknown>> & { files?: DocumentFileInput[] };

export const PARAM_NAMES = Object.keys(CaptureParamsSchema.properties) as (keyof CaptureParams)[];
