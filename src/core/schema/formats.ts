/**
 * Every output format in one table: what it is served as, the file extension it is stored under,
 * and its kind: a still image, a video (made of a scenario's frames) or a printed document.
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
} as const satisfies Record<string, { contentType: string; extension: string; kind: 'image' | 'video' | 'document' }>;

export type CaptureFormat = keyof typeof FORMATS;
type FormatsOfKind<K> = { [F in CaptureFormat]: (typeof FORMATS)[F]['kind'] extends K ? F : never }[CaptureFormat];
export type ImageFormat = FormatsOfKind<'image'>;
export type VideoFormat = FormatsOfKind<'video'>;

const ALL = Object.keys(FORMATS) as CaptureFormat[];
export const IMAGE_FORMATS = ALL.filter((format) => FORMATS[format].kind === 'image') as readonly ImageFormat[];
export const VIDEO_FORMATS = ALL.filter((format) => FORMATS[format].kind === 'video') as readonly VideoFormat[];

/** Formats made of a scenario's frames (`scroll`, `record`): mp4, webm and the animated gif. */
export function isVideoFormat(format: CaptureFormat): format is VideoFormat {
  return FORMATS[format].kind === 'video';
}

export function isImageFormat(format: CaptureFormat): format is ImageFormat {
  return FORMATS[format].kind === 'image';
}

/** The files stored beside a capture (see `Sidecar`): a HAR is JSON. */
const SIDECAR_TYPES: [string, string][] = [['har', 'application/json']];

const BY_EXTENSION = new Map<string, string>([...ALL.map((format): [string, string] => [FORMATS[format].extension, FORMATS[format].contentType]), ...SIDECAR_TYPES]);

/** Content type from a stored file's name; unknown extensions are served as opaque bytes. */
export function contentTypeOf(name: string): string {
  return BY_EXTENSION.get(name.slice(name.lastIndexOf('.') + 1).toLowerCase()) ?? 'application/octet-stream';
}
