import path from 'node:path';
import { FORMATS, type CaptureFormat } from '../core/schema/formats.js';

/** Extensions that name one format besides each format's own (`.md` is markdown, `.json` names none: links, metadata and scrape share it). */
const ALSO: Record<string, CaptureFormat> = { jpeg: 'jpg', htm: 'html', yml: 'aria', markdown: 'markdown' };

const BY_EXTENSION = new Map<string, CaptureFormat>(
  (Object.keys(FORMATS) as CaptureFormat[]).filter((format) => format !== 'links' && format !== 'metadata' && format !== 'scrape').map((format) => [FORMATS[format].extension, format]),
);

/** `shot URL -o page.md`: the format a file's extension names, when the shot names none (`{}` when the extension names none either). */
export function formatOfFile(file: string): { format?: CaptureFormat } {
  const extension = path.extname(file).slice(1).toLowerCase();
  const format = ALSO[extension] ?? BY_EXTENSION.get(extension);
  return format === undefined ? {} : { format };
}
