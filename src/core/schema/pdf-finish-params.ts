import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import { PDF_OPTION_PROPERTIES } from './pdf-params.js';

export const PDF_A_LEVELS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const;
export const PDF_EINVOICE_KINDS = ['factur-x', 'zugferd'] as const;
/** The rights `pdf_permissions` may grant, as the issue and Gotenberg's users name them. */
export const PDF_PERMISSIONS = ['print', 'print_high', 'modify', 'copy', 'annotate', 'fill_forms', 'extract', 'assemble'] as const;
export type PdfPermission = (typeof PDF_PERMISSIONS)[number];

/** Page ranges as pdf_page_ranges takes them. */
const PAGE_RANGES = (PDF_OPTION_PROPERTIES.pdf_page_ranges as { pattern?: string }).pattern;

/** AES-256 (revision 6) takes passwords of up to 127 bytes of UTF-8. */
const password = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 127, pattern: '^[^\r\n]+$', description }));

const markText = (where: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: `Text drawn ${where} on each page, centred and turned (Latin-1 characters).` }));
const markOpacity = (param: string, opacity: number) => Type.Number({ minimum: 0, maximum: 1, default: opacity, description: `Opacity of ${param}, 0 to 1.` });
const markAngle = (param: string, angle: number) => Type.Number({ minimum: -360, maximum: 360, default: angle, description: `Angle of ${param} in degrees, counter-clockwise.` });
const markPages = (param: string) => Type.Optional(Type.String({ pattern: PAGE_RANGES, maxLength: 256, description: `The pages ${param} goes on, e.g. \`1-3, 5\` (all when omitted).` }));

/** What is done to the printed PDF afterwards: archiving, accessibility, protection. Part of the one request schema. */
export const PDF_FINISH_PROPERTIES = {
  pdf_a: Type.Optional(
    Type.Enum([...PDF_A_LEVELS], {
      description:
        'Convert the PDF to PDF/A (archival) with Ghostscript: an sRGB output intent, every font embedded, XMP pdfaid. Links, the outline and the document information (plain ASCII values) are kept; the tags are not (hence level b), and the Producer becomes Ghostscript. Not with pdf_ua or a password.',
    }),
  ),
  pdf_einvoice: Type.Optional(
    Type.Enum([...PDF_EINVOICE_KINDS], {
      description:
        'An e-invoice: a PDF/A-3b with the invoice XML uploaded in files (`factur-x.xml`; for zugferd `zugferd-invoice.xml` or `xrechnung.xml`) embedded under that name, AFRelationship Data, and the Factur-X XMP with the profile read from the XML.',
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
  pdf_stamp: markText('over the content'),
  pdf_stamp_opacity: markOpacity('pdf_stamp', 1),
  pdf_stamp_angle: markAngle('pdf_stamp', 0),
  pdf_stamp_pages: markPages('pdf_stamp'),
  pdf_linearize: Type.Boolean({ default: false, description: 'Linearize the PDF ("fast web view"): its first page shows before the whole file has arrived.' }),
};

type Given = Map<string, unknown>;

/** The rights of a `pdf_permissions` value, checked. */
export function permissionsOf(value: string): PdfPermission[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.find((name) => !(PDF_PERMISSIONS as readonly string[]).includes(name));
  if (unknown !== undefined) throw captureErrors.invalidParameter('pdf_permissions', `Invalid parameter 'pdf_permissions': unknown right '${unknown}'`, `a comma-separated list of ${PDF_PERMISSIONS.join(', ')}`);
  return names as PdfPermission[];
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
  const marked = ['pdf_watermark', 'pdf_stamp'].find((name) => given.has(name));
  if (marked !== undefined && given.get('pdf_ua') === true) throw incompatible(`${marked} draws untagged text, which PDF/UA forbids`, [marked, 'pdf_ua']);
  for (const mark of ['pdf_watermark', 'pdf_stamp']) {
    const option = ['_opacity', '_angle', '_pages'].map((suffix) => mark + suffix).find((name) => chosen(given, name));
    if (option !== undefined && !given.has(mark)) throw incompatible(`${option} applies to ${mark}: add it`, [option, mark]);
  }
  if (given.has('pdf_rotate_pages') && !given.has('pdf_rotate')) throw incompatible('pdf_rotate_pages says which pages pdf_rotate turns: add pdf_rotate', ['pdf_rotate_pages', 'pdf_rotate']);
  if (given.has('pdf_owner_password') && given.get('pdf_owner_password') === given.get('pdf_password')) {
    throw incompatible('pdf_owner_password must differ from pdf_password, or opening with it grants every right', ['pdf_owner_password', 'pdf_password']);
  }
}
