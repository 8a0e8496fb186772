/**
 * Every output format in one table: what it is served as, the file extension it is stored under,
 * and its kind: a still image, a video (made of a scenario's frames), a printed document, or
 * `content`: what the settled page says (its Markdown, HTML, text, links, metadata, ARIA tree).
 * Encoders, storage, the schema's rules and the HTTP service all read it.
 */
export const FORMATS = {
  png: { contentType: 'image/png', extension: 'png', kind: 'image' },
  jpg: { contentType: 'image/jpeg', extension: 'jpg', kind: 'image' },
  webp: { contentType: 'image/webp', extension: 'webp', kind: 'image' },
  avif: { contentType: 'image/avif', extension: 'avif', kind: 'image' },
  pdf: { contentType: 'application/pdf', extension: 'pdf', kind: 'document' },
  mp4: { contentType: 'video/mp4', extension: 'mp4', kind: 'video' },
  webm: { contentType: 'video/webm', extension: 'webm', kind: 'video' },
  gif: { contentType: 'image/gif', extension: 'gif', kind: 'video' },
  markdown: { contentType: 'text/markdown; charset=utf-8', extension: 'md', kind: 'content' },
  html: { contentType: 'text/html; charset=utf-8', extension: 'html', kind: 'content' },
  text: { contentType: 'text/plain; charset=utf-8', extension: 'txt', kind: 'content' },
  links: { contentType: 'application/json', extension: 'json', kind: 'content' },
  metadata: { contentType: 'application/json', extension: 'json', kind: 'content' },
  aria: { contentType: 'text/yaml; charset=utf-8', extension: 'yaml', kind: 'content' },
  scrape: { contentType: 'application/json', extension: 'json', kind: 'content' },
} as const satisfies Record<string, { contentType: string; extension: string; kind: 'image' | 'video' | 'document' | 'content' }>;

export type CaptureFormat = keyof typeof FORMATS;
type FormatsOfKind<K> = { [F in CaptureFormat]: (typeof FORMATS)[F]['kind'] extends K ? F : never }[CaptureFormat];
export type ImageFormat = FormatsOfKind<'image'>;
export type VideoFormat = FormatsOfKind<'video'>;
/** What the settled page says, as text or JSON: `format=markdown` and the others, and `outputs=` beside a picture. */
export type ContentFormat = FormatsOfKind<'content'>;

const ALL = Object.keys(FORMATS) as CaptureFormat[];
export const IMAGE_FORMATS = ALL.filter((format) => FORMATS[format].kind === 'image') as readonly ImageFormat[];
export const VIDEO_FORMATS = ALL.filter((format) => FORMATS[format].kind === 'video') as readonly VideoFormat[];
export const CONTENT_FORMATS = ALL.filter((format) => FORMATS[format].kind === 'content') as readonly ContentFormat[];

/** Formats made of a scenario's frames (`scroll`, `record`): mp4, webm and the animated gif. */
export function isVideoFormat(format: CaptureFormat): format is VideoFormat {
  return FORMATS[format].kind === 'video';
}

export function isImageFormat(format: CaptureFormat): format is ImageFormat {
  return FORMATS[format].kind === 'image';
}

export function isContentFormat(format: CaptureFormat): format is ContentFormat {
  return FORMATS[format].kind === 'content';
}

/** The files stored beside a capture (see `Sidecar`): a HAR is JSON. */
const SIDECAR_TYPES: [string, string][] = [['har', 'application/json']];

const BY_EXTENSION = new Map<string, string>([...ALL.map((format): [string, string] => [FORMATS[format].extension, FORMATS[format].contentType]), ...SIDECAR_TYPES]);

/** Content type from a stored file's name; unknown extensions are served as opaque bytes. */
export function contentTypeOf(name: string): string {
  return BY_EXTENSION.get(name.slice(name.lastIndexOf('.') + 1).toLowerCase()) ?? 'application/octet-stream';
}
