/**
 * Every output format in one table: what it is served as, the file extension it is stored under,
 * and whether it is a video. Encoders, storage and the HTTP service all read it.
 */
export const FORMATS = {
  png: { contentType: 'image/png', extension: 'png', video: false },
  jpg: { contentType: 'image/jpeg', extension: 'jpg', video: false },
  webp: { contentType: 'image/webp', extension: 'webp', video: false },
  mp4: { contentType: 'video/mp4', extension: 'mp4', video: true },
  webm: { contentType: 'video/webm', extension: 'webm', video: true },
} as const satisfies Record<string, { contentType: string; extension: string; video: boolean }>;

export type CaptureFormat = keyof typeof FORMATS;
export type ImageFormat = { [F in CaptureFormat]: (typeof FORMATS)[F]['video'] extends false ? F : never }[CaptureFormat];
export type VideoFormat = Exclude<CaptureFormat, ImageFormat>;

const ALL = Object.keys(FORMATS) as CaptureFormat[];
export const IMAGE_FORMATS = ALL.filter((format) => !FORMATS[format].video) as readonly ImageFormat[];
export const VIDEO_FORMATS = ALL.filter((format) => FORMATS[format].video) as readonly VideoFormat[];

export function isVideoFormat(format: CaptureFormat): format is VideoFormat {
  return FORMATS[format].video;
}

const BY_EXTENSION = new Map<string, string>(ALL.map((format) => [FORMATS[format].extension, FORMATS[format].contentType]));

/** Content type from a stored file's name; unknown extensions are served as opaque bytes. */
export function contentTypeOf(name: string): string {
  return BY_EXTENSION.get(name.slice(name.lastIndexOf('.') + 1).toLowerCase()) ?? 'application/octet-stream';
}
