import Type, { type Static } from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { documentPath, ENTRY_FILES, type DocumentFileParam } from './document-params.js';

/** Most files one capture fetches: each is a connection the service makes for the caller. */
export const MAX_DOWNLOADS = 20;
/** Largest file fetched, and largest sum of them: the document lives in memory while it is captured. */
export const MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_DOWNLOADS_BYTES = 64 * 1024 * 1024;
const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$';
const HEADER_VALUE = '^[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$';

const Download = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: HEADER_NAME }), Type.String({ maxLength: 4096, pattern: HEADER_VALUE }), { maxProperties: 10 })),
  },
  { additionalProperties: false },
);
export type DownloadParam = Static<typeof Download>;

/**
 * Files of a document the service fetches from URLs before the capture, as Gotenberg's
 * `downloadFrom`: through the egress guard, bounded in number, size and time. Part of the one schema.
 */
export const DOWNLOAD_PROPERTIES = {
  download_from: Type.Optional(
    Type.Array(Download, {
      minItems: 1,
      maxItems: MAX_DOWNLOADS,
      description: `Files of the document fetched by the service before the capture, as if uploaded with files: a JSON array (a JSON string in a query or form) of {url, name?, headers?}; \`name\` is the file's path in the document (default: the URL's last segment). Alone they must bring the index.html or index.md; beside files, files has it. Fetched with GET through the egress guard (each redirect checked, at most 3), within the capture's budget, at most ${MAX_DOWNLOADS} files of ${MAX_DOWNLOAD_BYTES / 2 ** 20} MiB, ${MAX_DOWNLOADS_BYTES / 2 ** 20} MiB together.`,
    }),
  ),
};

export const DOWNLOAD_ALLOWED_TEXT = { download_from: `a JSON array of at most ${MAX_DOWNLOADS} {url (http or https), name?, headers?}` };

export const DOWNLOAD_READERS = {
  download_from: (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  },
};

/** The path a download takes in the document: its `name`, else the last segment of its URL. */
export function downloadPath(download: DownloadParam): string | undefined {
  if (download.name !== undefined) return documentPath(download.name);
  if (!URL.canParse(download.url)) return undefined;
  const segment = new URL(download.url).pathname.split('/').filter((part) => part !== '').at(-1);
  return segment === undefined ? undefined : documentPath(decodeURIComponent(segment));
}

export const DOWNLOAD_CHECKS = {
  download_from: (downloads: DownloadParam[]): string | undefined => {
    for (const [index, download] of downloads.entries()) {
      if (!URL.canParse(download.url) || !['http:', 'https:'].includes(new URL(download.url).protocol)) return `download_from[${index}].url is not an http or https URL`;
      if (downloadPath(download) === undefined) return `download_from[${index}] has no file name: give name`;
    }
    return undefined;
  },
};

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

/** Downloads complete `files`, or stand alone for them; each refusal names the parameters involved. */
export function checkDownloadCombinations(given: Map<string, unknown>): void {
  const downloads = given.get('download_from') as DownloadParam[] | undefined;
  if (downloads === undefined) return;
  const other = (['url', 'html', 'markdown'] as const).find((name) => given.has(name));
  if (other !== undefined) throw incompatible(`download_from brings files of a document; ${other} is another input: give one`, ['download_from', other]);
  const paths = [...((given.get('files') ?? []) as DocumentFileParam[]).map(({ name }) => documentPath(name)), ...downloads.map(downloadPath)];
  if (new Set(paths).size !== paths.length) throw incompatible('download_from and files name the same file twice', ['download_from', 'files']);
  if (!given.has('files') && !ENTRY_FILES.some((entry) => paths.includes(entry))) {
    throw new CaptureError('INVALID_PARAMETER', "Invalid parameter 'download_from': without files, one download must be the index.html or index.md (its name)", { details: { param: 'download_from', allowed: DOWNLOAD_ALLOWED_TEXT.download_from } });
  }
}
