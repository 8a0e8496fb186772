import Type from 'typebox';

/** Beyond any body or upload limit the HTTP service allows: the limits that matter are those. */
const LARGEST_DOCUMENT = 64 * 1024 * 1024;

/**
 * Documents captured instead of a URL: an HTML page, Markdown, or files with an `index.html` or
 * `index.md` and the assets it references by relative paths. Part of the one request schema.
 */
export const DOCUMENT_PROPERTIES = {
  html: Type.Optional(Type.String({ minLength: 1, maxLength: LARGEST_DOCUMENT, description: 'A whole HTML document to capture instead of a url (POST: JSON, form or multipart).' })),
  markdown: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: LARGEST_DOCUMENT,
      description: 'Markdown to capture instead of a url: CommonMark with GitHub tables, task lists and strikethrough, code highlighted, on a readable default page that `styles` can extend.',
    }),
  ),
  markdown_template: Type.Optional(
    Type.String({ minLength: 1, maxLength: LARGEST_DOCUMENT, description: 'With markdown (or an uploaded index.md): an HTML page whose `{{ content }}` is replaced by the rendered Markdown, instead of the default page.' }),
  ),
  files: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 512 }),
        content: Type.String({ maxLength: LARGEST_DOCUMENT }),
        encoding: Type.Optional(Type.Enum(['utf8', 'base64'])),
        type: Type.Optional(Type.String({ maxLength: 255 })),
      }),
      {
        minItems: 1,
        maxItems: 10_000,
        description:
          'Files to capture instead of a url: an `index.html` (or `index.md`) and the assets it references by relative paths. Multipart uploads become this; in JSON, an array of {name, content, encoding?: utf8 or base64, type?}.',
      },
    ),
  ),
};

export type DocumentFileParam = { name: string; content: string; encoding?: 'utf8' | 'base64'; type?: string };

/** The parameters that say what is captured; exactly one is given. */
export const INPUT_PARAMS = ['url', 'html', 'markdown', 'files'] as const;

/**
 * A document's size as each way of sending it allows: the HTTP service's limits (bodyLimit,
 * uploadLimits.fileBytes; a test holds these words to their defaults), the schema's in the library.
 */
const DOCUMENT_SIZE =
  'text: over HTTP at most 64 KiB in a JSON or form body (bodyLimit), 10 MiB as a multipart/form-data field or file (uploadLimits.fileBytes); 64 MiB from the library';

export const DOCUMENT_ALLOWED_TEXT = {
  html: DOCUMENT_SIZE,
  markdown: DOCUMENT_SIZE,
  markdown_template: DOCUMENT_SIZE,
  files: 'an array of {name, content, encoding?: utf8 or base64, type?} with an index.html or index.md',
};

/** Library callers may pass file contents as bytes; they travel (jobs, cache keys) as base64. */
export const DOCUMENT_READERS = {
  files: (value: unknown): unknown => {
    if (!Array.isArray(value)) return undefined;
    return value.map((file: unknown) => {
      if (file === null || typeof file !== 'object') return file;
      const { content } = file as { content?: unknown };
      if (!(content instanceof Uint8Array)) return file;
      return { ...file, content: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64'), encoding: 'base64' };
    });
  },
};

/** A file's path within the document: forward slashes, no leading `./` or `/`; undefined when it climbs out. */
export function documentPath(name: string): string | undefined {
  const segments = name.replaceAll('\\', '/').split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.some((segment) => segment === '..' || segment.includes('\0'))) return undefined;
  return segments.join('/');
}

export const ENTRY_FILES = ['index.html', 'index.md'] as const;

/** Whether files hold a page to open: the document's, unless pdf_merge names its files part by part. */
export const hasEntryFile = (files: readonly DocumentFileParam[]): boolean => files.some(({ name }) => (ENTRY_FILES as readonly (string | undefined)[]).includes(documentPath(name)));

export const DOCUMENT_CHECKS = {
  files: (files: DocumentFileParam[]): string | undefined => {
    const seen = new Set<string>();
    for (const { name } of files) {
      const path = documentPath(name);
      if (path === undefined) return `file name '${name}' leaves the document`;
      if (seen.has(path)) return `file '${path}' is given twice`;
      seen.add(path);
    }
    return undefined;
  },
  markdown_template: (template: string): string | undefined => (MARKDOWN_PLACEHOLDER.test(template) ? undefined : 'it has no {{ content }} placeholder'),
};

export const MARKDOWN_PLACEHOLDER = /\{\{\s*content\s*\}\}/;
