import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import { PDF_OPTION_PROPERTIES } from './pdf-params.js';
import { documentPath } from './document-params.js';
import { downloadPath, MAX_DOWNLOAD_BYTES } from './download-params.js';
import { checkSplit, PDF_SPLIT_PROPERTIES } from './pdf-split-params.js';

export const PDF_A_LEVELS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const;
export const PDF_EINVOICE_KINDS = ['factur-x', 'zugferd'] as const;
/** The rights `pdf_permissions` may grant, as the issue and Gotenberg's users name them. */
export const PDF_PERMISSIONS = ['print', 'print_high', 'modify', 'copy', 'annotate', 'fill_forms', 'extract', 'assemble'] as const;
export type PdfPermission = (typeof PDF_PERMISSIONS)[number];
/** Files one PDF may embed: each is a pdf-lib pass's worth of work and memory. */
export const MAX_PDF_ATTACHMENTS = 20;
/** Bytes of all the attachments fetched by URL together (each is at most download_from's file bound): they are held in memory with the PDF. */
export const MAX_ATTACHMENT_URLS_BYTES = 32 * 1024 * 1024;

/** Page ranges as pdf_page_ranges takes them. */
const PAGE_RANGES = (PDF_OPTION_PROPERTIES.pdf_page_ranges as { pattern?: string }).pattern;

/** AES-256 (revision 6) takes passwords of up to 127 bytes of UTF-8. */
const password = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 127, pattern: '^[^\r\n]+$', description }));

const markText = (where: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: `Text drawn ${where} on each page, centred and turned (Latin-1 characters).` }));
const markOpacity = (param: string, opacity: number) => Type.Number({ minimum: 0, maximum: 1, default: opacity, description: `Opacity of ${param}, 0 to 1.` });
const markAngle = (param: string, angle: number) => Type.Number({ minimum: -360, maximum: 360, default: angle, description: `Angle of ${param} in degrees, counter-clockwise.` });
const markPages = (param: string) => Type.Optional(Type.String({ pattern: PAGE_RANGES, maxLength: 256, description: `The pages ${param} goes on, e.g. \`1-3, 5\` (all when omitted).` }));
const markImage = (param: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: `The path in files of an uploaded PNG or JPEG (at most 4096 px a side) drawn instead of ${param}'s text, at most half the page's width and height.` }));

/** What is done to the printed PDF afterwards: archiving, accessibility, protection. Part of the one request schema. */
export const PDF_FINISH_PROPERTIES = {
  pdf_a: Type.Optional(
    Type.Enum([...PDF_A_LEVELS], {
      description:
        'Convert the PDF to PDF/A (archival) with Ghostscript: an sRGB output intent, every font embedded, XMP pdfaid. Links, the outline and the document information (in its dictionary and the XMP, any script) are kept; the tags are not (hence level b), and the Producer becomes Ghostscript. Not with pdf_ua or a password.',
    }),
  ),
  pdf_einvoice: Type.Optional(
    Type.Enum([...PDF_EINVOICE_KINDS], {
      description:
        'An e-invoice: a PDF/A-3b with the invoice XML uploaded in files (`factur-x.xml`; for zugferd `zugferd-invoice.xml` or `xrechnung.xml`) embedded under that name, AFRelationship Data, and the Factur-X XMP with the profile read from the XML.',
    }),
  ),
  pdf_attachments: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: `Comma-separated files to embed in the PDF (at most ${MAX_PDF_ATTACHMENTS}): paths of files uploaded in files, or http(s) URLs the service fetches like download_from (through the egress guard, within the capture's time, ${MAX_DOWNLOAD_BYTES / 2 ** 20} MiB a file, ${MAX_ATTACHMENT_URLS_BYTES / 2 ** 20} MiB together; named by the URL's last segment, a comma in it written %2C). Each is embedded with its MIME type (the response's, else the name's) and AFRelationship Unspecified, as PDF/A-3 asks. Not with pdf_a PDF/A-1b or PDF/A-2b, which forbid them.`,
    }),
  ),
  pdf_ua: Type.Boolean({
    default: false,
    description: 'A PDF/UA-1 (accessible) file: tagged, with the page\'s language (`<html lang>`, else the browser\'s locale), its title displayed, and XMP pdfuaid. Needs a title (the page\'s `<title>` or pdf_title).',
  }),
  pdf_password: password('Password needed to open the PDF (AES-256).'),
  pdf_owner_password: password('Password that lifts pdf_permissions (AES-256); must differ from pdf_password.'),
  pdf_permissions: Type.Optional(
    Type.String({
      minLength: 0,
      maxLength: 128,
      description: `Comma-separated rights granted to whoever opens the PDF without the owner password: ${PDF_PERMISSIONS.join(', ')}; those not named are refused (an empty list refuses all). All are granted when absent. Needs pdf_owner_password.`,
    }),
  ),
  pdf_rotate: Type.Optional(Type.Integer({ minimum: 90, maximum: 270, multipleOf: 90, description: 'Turn pages clockwise by 90, 180 or 270 degrees (the pages of pdf_rotate_pages, else all).' })),
  pdf_rotate_pages: Type.Optional(
    Type.String({ pattern: PAGE_RANGES, maxLength: 256, description: 'With pdf_rotate: the pages to turn, e.g. `1-3, 5`, counted in the printed PDF.' }),
  ),
  pdf_watermark: markText('behind the content'),
  pdf_watermark_opacity: markOpacity('pdf_watermark', 0.3),
  pdf_watermark_angle: markAngle('pdf_watermark', 45),
  pdf_watermark_pages: markPages('pdf_watermark'),
  pdf_watermark_image: markImage('pdf_watermark'),
  pdf_stamp: markText('over the content'),
  pdf_stamp_opacity: markOpacity('pdf_stamp', 1),
  pdf_stamp_angle: markAngle('pdf_stamp', 0),
  pdf_stamp_pages: markPages('pdf_stamp'),
  pdf_stamp_image: markImage('pdf_stamp'),
  pdf_sign: Type.Boolean({
    default: false,
    description:
      "Sign the PDF with the service's own key (the PKCS#12 its operator configures; refused when there is none): an invisible signature, adbe.pkcs7.detached with SHA-256, over the whole file. Last of all the finishing, so not with a password or pdf_linearize.",
  }),
  pdf_optimize: Type.Boolean({
    default: false,
    description:
      'Make the PDF smaller: Ghostscript stores an image drawn on many pages (a header logo) once and subsets the fonts, qpdf packs the objects into compressed object streams (deflates the streams again only, in a PDF/A-1b). With pdf_a or pdf_einvoice it is done in their own Ghostscript pass, which keeps the file PDF/A. Not with pdf_ua (Ghostscript drops the tags).',
  }),
  pdf_image_dpi: Type.Optional(Type.Integer({ minimum: 36, maximum: 1200, description: 'With pdf_optimize: images above this resolution (dots per inch on the page) are resampled to it.' })),
  pdf_linearize: Type.Boolean({ default: false, description: 'Linearize the PDF ("fast web view"): its first page shows before the whole file has arrived.' }),
  pdf_flatten: Type.Boolean({
    default: false,
    description: 'Flatten the PDF with qpdf: form fields and annotations drawn into the pages\' content and removed, so nothing can be filled in or clicked (links too).',
  }),
  ...PDF_SPLIT_PROPERTIES,
};

type Given = Map<string, unknown>;

/** The rights of a `pdf_permissions` value, checked. */
export function permissionsOf(value: string): PdfPermission[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.find((name) => !(PDF_PERMISSIONS as readonly string[]).includes(name));
  if (unknown !== undefined) throw captureErrors.invalidParameter('pdf_permissions', `Invalid parameter 'pdf_permissions': unknown right '${unknown}'`, `a comma-separated list of ${PDF_PERMISSIONS.join(', ')}`);
  return names as PdfPermission[];
}

/** One file `pdf_attachments` names: an upload's path, or a URL the engine fetches (named by its last segment). */
export interface AttachmentEntry {
  name: string;
  url?: string;
}

/** The files a `pdf_attachments` value names, checked: at most MAX_PDF_ATTACHMENTS, each name once, none outside the document. */
export function attachmentEntriesOf(value: string): AttachmentEntry[] {
  const refused = (why: string) => captureErrors.invalidParameter('pdf_attachments', `Invalid parameter 'pdf_attachments': ${why}`, `comma-separated paths of files uploaded in files or http(s) URLs, at most ${MAX_PDF_ATTACHMENTS}`);
  const given = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (given.length === 0) throw refused('no file named');
  if (given.length > MAX_PDF_ATTACHMENTS) throw refused(`${given.length} files named, at most ${MAX_PDF_ATTACHMENTS} allowed`);
  const entries: AttachmentEntry[] = [];
  for (const [index, entry] of given.entries()) {
    const url = /^https?:\/\//i.test(entry) ? entry : undefined;
    const name = url === undefined ? documentPath(entry) : downloadPath({ url });
    if (name === undefined) throw refused(url === undefined ? `'${entry}' leaves the document` : `pdf_attachments[${index}]: no file name in the URL's path`);
    if (entries.some((other) => other.name === name)) throw refused(`'${name}' is named twice`);
    entries.push({ name, ...(url === undefined ? {} : { url }) });
  }
  return entries;
}

/** A mark's options go with its text or its image (one of them), and its image is an upload. */
function checkMark(given: Given, mark: string, incompatible: (message: string, params: string[]) => CaptureError): void {
  const image = `${mark}_image`;
  if (given.has(mark) && given.has(image)) throw incompatible(`${mark} draws text, ${image} an image: give one`, [mark, image]);
  const option = ['_opacity', '_angle', '_pages'].map((suffix) => mark + suffix).find((name) => chosen(given, name));
  if (option !== undefined && !given.has(mark) && !given.has(image)) throw incompatible(`${option} applies to ${mark} (or ${image}): add it`, [option, mark]);
  if (!given.has(image)) return;
  const files = given.get('files') as { name: string }[] | undefined;
  if (files === undefined) throw incompatible(`${image} is a file uploaded in files: send the document as files (multipart uploads)`, [image, 'files']);
  const name = documentPath(given.get(image) as string);
  if (!files.some((file) => documentPath(file.name) === name)) throw captureErrors.invalidParameter(image, `Invalid parameter '${image}': no file '${String(given.get(image))}' in files`, 'the path of a PNG or JPEG uploaded in files');
}

/** pdf_optimize's Ghostscript pass (PDF/A's own when both are asked), which the tags would not survive. */
function checkOptimize(given: Given, incompatible: (message: string, params: string[]) => CaptureError): void {
  if (given.has('pdf_image_dpi') && given.get('pdf_optimize') !== true) throw incompatible('pdf_image_dpi resamples images in the pdf_optimize pass: add pdf_optimize=true', ['pdf_image_dpi', 'pdf_optimize']);
  if (given.get('pdf_optimize') === true && given.get('pdf_ua') === true) throw incompatible('pdf_optimize rewrites the file with Ghostscript, which drops the tags PDF/UA needs', ['pdf_optimize', 'pdf_ua']);
}

/** `pdf_attachments` names uploaded files or URLs, in a PDF that may hold them. */
function checkAttachments(given: Given, incompatible: (message: string, params: string[]) => CaptureError): void {
  if (!given.has('pdf_attachments')) return;
  const uploads = attachmentEntriesOf(given.get('pdf_attachments') as string).filter((entry) => entry.url === undefined);
  const level = given.get('pdf_a');
  if (level === 'PDF/A-1b' || level === 'PDF/A-2b') throw incompatible(`${level} forbids embedded files (PDF/A-3b allows them)`, ['pdf_attachments', 'pdf_a']);
  if (uploads.length === 0) return;
  const files = given.get('files') as { name: string }[] | undefined;
  if (files === undefined) throw incompatible('pdf_attachments embeds files uploaded in files (or fetched from http(s) URLs): send the document as files (multipart uploads)', ['pdf_attachments', 'files']);
  const uploaded = new Set(files.map((file) => documentPath(file.name)));
  const absent = uploads.find(({ name }) => !uploaded.has(name));
  if (absent !== undefined) throw captureErrors.invalidParameter('pdf_attachments', `Invalid parameter 'pdf_attachments': no file '${absent.name}' in files`, 'comma-separated paths of files uploaded in files, or http(s) URLs');
}

/**
 * Given with a value other than its default: requests that went through the schema once (a render
 * link's, a queued job's) carry every default, which names no choice of the caller's.
 */
function chosen(given: Given, name: string): boolean {
  return given.has(name) && given.get(name) !== (PDF_FINISH_PROPERTIES as Record<string, { default?: unknown }>)[name]?.default;
}

/** The combinations of the finishing options that cannot make a valid file. */
export function checkPdfFinishCombinations(given: Given): void {
  const incompatible = (message: string, params: string[]) => new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
  const locked = ['pdf_password', 'pdf_owner_password', 'pdf_permissions'].find((name) => given.has(name));
  if (given.has('pdf_einvoice')) {
    const level = given.get('pdf_a');
    if (level !== undefined && level !== 'PDF/A-3b') throw incompatible(`an e-invoice is a PDF/A-3b, not ${String(level)}`, ['pdf_einvoice', 'pdf_a']);
    if (locked !== undefined) throw incompatible(`an e-invoice is a PDF/A-3b, which forbids encryption: pdf_einvoice and ${locked} cannot go together`, ['pdf_einvoice', locked]);
    if (given.get('pdf_ua') === true) throw incompatible('Ghostscript, which makes the PDF/A-3b of an e-invoice, drops the tags PDF/UA needs', ['pdf_einvoice', 'pdf_ua']);
  }
  if (given.has('pdf_a') && locked !== undefined) throw incompatible(`PDF/A forbids encryption: pdf_a and ${locked} cannot go together`, ['pdf_a', locked]);
  if (given.has('pdf_a') && given.get('pdf_ua') === true) throw incompatible('Ghostscript, which makes the PDF/A, drops the tags PDF/UA needs: give pdf_a or pdf_ua', ['pdf_a', 'pdf_ua']);
  if (given.has('pdf_permissions')) {
    permissionsOf(given.get('pdf_permissions') as string);
    if (!given.has('pdf_owner_password')) throw incompatible('pdf_permissions restricts the PDF only with an owner password to lift them: add pdf_owner_password', ['pdf_permissions', 'pdf_owner_password']);
  }
  const marked = ['pdf_watermark', 'pdf_stamp', 'pdf_watermark_image', 'pdf_stamp_image'].find((name) => given.has(name));
  if (marked !== undefined && given.get('pdf_ua') === true) throw incompatible(`${marked} draws untagged content, which PDF/UA forbids`, [marked, 'pdf_ua']);
  for (const mark of ['pdf_watermark', 'pdf_stamp']) checkMark(given, mark, incompatible);
  checkAttachments(given, incompatible);
  checkOptimize(given, incompatible);
  checkSplit(given, incompatible);
  if (given.get('pdf_sign') === true) {
    const rewrites = locked ?? (given.get('pdf_linearize') === true ? 'pdf_linearize' : undefined);
    if (rewrites !== undefined) throw incompatible(`${rewrites} rewrites the file, which breaks the signature pdf_sign puts on it last`, ['pdf_sign', rewrites]);
  }
  if (given.has('pdf_rotate_pages') && !given.has('pdf_rotate')) throw incompatible('pdf_rotate_pages says which pages pdf_rotate turns: add pdf_rotate', ['pdf_rotate_pages', 'pdf_rotate']);
  if (given.has('pdf_owner_password') && given.get('pdf_owner_password') === given.get('pdf_password')) {
    throw incompatible('pdf_owner_password must differ from pdf_password, or opening with it grants every right', ['pdf_owner_password', 'pdf_password']);
  }
}
