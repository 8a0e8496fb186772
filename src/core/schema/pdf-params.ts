import Type from 'typebox';
import { readJsonText } from './page-option-params.js';
import { CaptureError } from '../errors/catalogue.js';

/** A length on paper: a number with an optional unit (inches when none), as Gotenberg takes them. */
const LENGTH = '^(?:[0-9]{1,4}(?:\\.[0-9]{1,4})?)(?:px|in|cm|mm)?$';
const INCHES_PER = { px: 1 / 96, in: 1, cm: 1 / 2.54, mm: 1 / 25.4 } as const;
/** The largest page Chromium prints is 200 inches on a side (PDF's 14,400 points). */
export const LARGEST_PAPER_INCHES = 200;

/** An ISO 8601 date, or date and time with an optional zone, as `Date` reads it. */
const PDF_DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]{1,3})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?$';

/** Custom fields one PDF may be given, and the characters of each value. */
export const MAX_PDF_METADATA_FIELDS = 20;
export const MAX_PDF_METADATA_VALUE = 1024;
/** A PDF name any reader shows as it is: no delimiters, spaces or `#` escapes. */
const PDF_INFO_KEY = '^[A-Za-z][A-Za-z0-9_.-]{0,63}$';
/** The information dictionary's standard keys (PDF 1.7, 14.3.3), each set by its own `pdf_` parameter. */
const STANDARD_INFO_KEYS: Record<string, string> = {
  Title: 'pdf_title',
  Author: 'pdf_author',
  Subject: 'pdf_subject',
  Keywords: 'pdf_keywords',
  Creator: 'pdf_creator',
  Producer: 'pdf_producer',
  CreationDate: 'pdf_creation_date',
  ModDate: 'pdf_modification_date',
  Trapped: 'pdf_trapped',
};

const length = (description: string) => Type.Optional(Type.String({ pattern: LENGTH, maxLength: 12, description }));

/**
 * The PDF options beyond paper, orientation and backgrounds: Gotenberg's set, prefixed `pdf_`.
 * Part of the one request schema.
 */
export const PDF_OPTION_PROPERTIES = {
  pdf_width: length('Custom paper width (with pdf_height), e.g. `8.5in`, `210mm`, `21cm`, `816px`; a bare number is inches. Replaces pdf_paper.'),
  pdf_height: length('Custom paper height (with pdf_width).'),
  pdf_margin_top: length("Top margin, e.g. `1cm`; a bare number is inches. Default Chromium's (0.4 in)."),
  pdf_margin_right: length('Right margin.'),
  pdf_margin_bottom: length('Bottom margin.'),
  pdf_margin_left: length('Left margin.'),
  pdf_scale: Type.Number({ minimum: 0.1, maximum: 2, default: 1, description: 'Scale of the page on paper.' }),
  pdf_page_ranges: Type.Optional(
    Type.String({ pattern: '^\\s*[0-9]+(?:\\s*-\\s*[0-9]+)?(?:\\s*,\\s*[0-9]+(?:\\s*-\\s*[0-9]+)?)*\\s*$', maxLength: 256, description: 'Pages to keep, e.g. `1-5, 8, 11-13` (all when omitted).' }),
  ),
  pdf_prefer_css_page_size: Type.Boolean({ default: false, description: 'Paper size from the page\'s CSS `@page { size }` when it declares one.' }),
  pdf_single_page: Type.Boolean({ default: false, description: 'The whole document on one page, its page breaks ignored: as wide as A4 (its long side with pdf_landscape) or as the content when wider, as tall as the document (at most 200 in a side). It sizes the page itself: pdf_paper, pdf_width and pdf_height are refused with it.' }),
  pdf_tagged: Type.Boolean({ default: false, description: 'A tagged (accessible) PDF: headings, paragraphs, lists and tables marked up for screen readers.' }),
  pdf_title: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Title (default: the page's `<title>`, as Chromium writes it)." })),
  pdf_author: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Author." })),
  pdf_subject: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Subject." })),
  pdf_keywords: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Keywords, comma-separated." })),
  pdf_creator: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Creator, the application that made the document (default Chromium's)." })),
  pdf_producer: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "The PDF's Producer, what wrote the PDF (default Chromium's Skia/PDF)." })),
  pdf_creation_date: Type.Optional(
    Type.String({ pattern: PDF_DATE, maxLength: 35, description: "The PDF's CreationDate, an ISO 8601 date or date and time, e.g. `2026-01-31` or `2026-01-31T09:30:00+01:00` (default: when it was printed)." }),
  ),
  pdf_modification_date: Type.Optional(Type.String({ pattern: PDF_DATE, maxLength: 35, description: "The PDF's ModDate, as pdf_creation_date." })),
  pdf_trapped: Type.Optional(Type.Enum(['True', 'False', 'Unknown'], { description: "The PDF's Trapped: whether trapping was applied for print (PDF 1.3's `/Trapped`)." })),
  pdf_metadata: Type.Optional(
    Type.Record(Type.String({ pattern: PDF_INFO_KEY }), Type.String({ minLength: 1, maxLength: MAX_PDF_METADATA_VALUE }), {
      maxProperties: MAX_PDF_METADATA_FIELDS,
      description: `Custom fields of the PDF's document information, e.g. \`{"Department": "Finance", "Reference": "INV-2026-001"}\` (an object, or a JSON string in a query or form): at most ${MAX_PDF_METADATA_FIELDS}, each name a letter then letters, digits, \`-\`, \`_\` or \`.\` (at most 64), each value a text of at most ${MAX_PDF_METADATA_VALUE} characters, any script (written as UTF-16 when not ASCII). The standard fields have their own parameters (pdf_title, ...). Refused with pdf_a and pdf_einvoice, whose rewrite keeps the standard fields only.`,
    }),
  ),
  pdf_header_html: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024 * 1024,
      description:
        'HTML printed at the top of every page, in Chromium\'s template: elements with the classes `pageNumber`, `totalPages`, `date`, `title`, `url` get those values. Its images and fonts are inlined first, so they print. Give it room with pdf_margin_top.',
    }),
  ),
  pdf_footer_html: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 * 1024, description: 'HTML printed at the bottom of every page, as pdf_header_html. Give it room with pdf_margin_bottom.' })),
  pdf_max_pages: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100_000, description: "Most pages the printed PDF may have (the tier's by default on the service, and at most it): a longer document is refused with 413 naming pdf_max_pages, before all of it is read." }),
  ),
  pdf_max_bytes: Type.Optional(
    Type.Integer({ minimum: 1024, maximum: 1024 ** 3, description: "Largest printed PDF in bytes (the tier's by default on the service, and at most it): a larger one is refused with 413 naming pdf_max_bytes, as soon as it passes." }),
  ),
  pdf_outline: Type.Boolean({ default: false, description: 'Bookmarks from the document\'s headings (makes the PDF tagged too).' }),
};

/** A length of the schema's form in inches. */
export function inches(length: string): number {
  const unit = /(px|in|cm|mm)$/.exec(length)?.[1] as keyof typeof INCHES_PER | undefined;
  return Number(unit ? length.slice(0, -unit.length) : length) * INCHES_PER[unit ?? 'in'];
}

/** A date of the schema's form as a `Date`; undefined when it names no such day or time (`2026-02-30`, `T25:00`). */
export function pdfDate(text: string): Date | undefined {
  const date = new Date(text);
  const day = new Date(`${text.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text.slice(0, 10)) return undefined;
  return date;
}

const checkDate = (text: string): string | undefined => (pdfDate(text) === undefined ? `'${text}' is no such date` : undefined);

export const PDF_CHECKS = {
  pdf_creation_date: checkDate,
  pdf_modification_date: checkDate,
  pdf_metadata: (fields: Record<string, string>): string | undefined => {
    // The schema's key pattern is a pattern of properties: a key outside it would pass unchecked.
    const unnamed = Object.keys(fields).find((key) => !new RegExp(PDF_INFO_KEY).test(key));
    if (unnamed !== undefined) return `'${unnamed.slice(0, 70)}' is no field name: a letter, then letters, digits, -, _ or . (at most 64)`;
    const standard = Object.keys(fields).find((key) => Object.hasOwn(STANDARD_INFO_KEYS, key));
    return standard === undefined ? undefined : `'${standard}' is a standard field: set it with ${STANDARD_INFO_KEYS[standard]}`;
  },
};

export const PDF_ALLOWED_TEXT = {
  pdf_metadata: `an object (or JSON string) of at most ${MAX_PDF_METADATA_FIELDS} custom field names (a letter, then letters, digits, -_.; at most 64) to texts of 1 to ${MAX_PDF_METADATA_VALUE} characters`,
};

export const PDF_READERS = { pdf_metadata: readJsonText };

/** Ghostscript's PDF/A rewrite (pdf_a, and an e-invoice's) keeps the standard fields of the document information only. */
export function checkPdfMetadataCombinations(given: Map<string, unknown>): void {
  const rewrite = (['pdf_a', 'pdf_einvoice'] as const).find((name) => given.has(name));
  if (given.has('pdf_metadata') && rewrite !== undefined) {
    throw new CaptureError('INCOMPATIBLE_PARAMETERS', `pdf_metadata's custom fields do not survive ${rewrite}'s PDF/A rewrite, which keeps the standard fields only`, { details: { params: ['pdf_metadata', rewrite] } });
  }
}
