/**
 * shot-scraper's file names for `har --extract` (shot_scraper/utils.py, release 1.11): the host and
 * path of the URL, with the extension its content type names.
 */
const CONTENT_TYPE_EXTENSIONS: Record<string, string> = {
  'text/html': 'html',
  'text/css': 'css',
  'application/javascript': 'js',
  'text/javascript': 'js',
  'application/json': 'json',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'font/woff2': 'woff2',
  'font/woff': 'woff',
  'application/font-woff': 'woff',
};

/** The content type each extension is expected to have (EXTENSION_CONTENT_TYPES). */
const EXTENSION_CONTENT_TYPES: Record<string, string> = {
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'application/javascript',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  xml: 'application/xml',
  woff2: 'font/woff2',
  woff: 'font/woff',
};

const mimeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** extension_for_content_type: undefined for an unknown or missing type. */
export const extensionForContentType = (contentType: string | undefined): string | undefined => CONTENT_TYPE_EXTENSIONS[mimeOf(contentType)];

/** filename_for_url's stem: dots and slashes as dashes, anything else outside [a-zA-Z0-9_-] dropped. */
export const urlStem = (hostAndPath: string): string =>
  hostAndPath.replaceAll(/[./]/g, '-').replace(/-+$/, '').replaceAll(/[^a-zA-Z0-9_-]/g, '').replace(/^-+/, '');

/**
 * filename_for_har_entry: the URL's extension when its content type agrees (`style.css` served as
 * text/css), else the content type's, else the URL's, else `bin`; `.1`, `.2` before it when taken.
 */
export function filenameForHarEntry(url: string, contentType: string | undefined, taken: (name: string) => boolean): string {
  let host = '';
  let pathname = url;
  try {
    ({ host, pathname } = new URL(url));
  } catch {
    // Not a URL: its text is the path, as urlparse reads it.
  }
  const dot = pathname.lastIndexOf('.');
  const hasExtension = dot > pathname.lastIndexOf('/') + 1;
  const urlExtension = hasExtension ? pathname.slice(dot + 1).toLowerCase() : undefined;
  const typeExtension = extensionForContentType(contentType);
  const expected = urlExtension === undefined ? undefined : EXTENSION_CONTENT_TYPES[urlExtension];
  const agrees = urlExtension !== undefined && typeExtension !== undefined && ((expected !== undefined && expected === mimeOf(contentType)) || (['jpg', 'jpeg'].includes(urlExtension) && ['jpg', 'jpeg'].includes(typeExtension)));
  const base = urlStem(host + (agrees ? pathname.slice(0, dot) : pathname));
  const extension = agrees ? (urlExtension as string) : (typeExtension ?? urlExtension ?? 'bin');
  let name = `${base}.${extension}`;
  for (let suffix = 1; taken(name); suffix++) name = `${base}.${suffix}.${extension}`;
  return name;
}
