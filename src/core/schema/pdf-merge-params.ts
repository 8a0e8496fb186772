import Type from 'typebox';
import { readJsonText } from './page-option-params.js';
import { CaptureError } from '../errors/catalogue.js';
import { DOCUMENT_PROPERTIES } from './document-params.js';

/** Parts one merge may print: each is a navigation, a settle and a print within the one capture's deadline. */
export const MAX_PDF_MERGE_PARTS = 50;

/**
 * What a part's `params` may set: how its pages are laid out, and `pdf_title`, the title of its
 * outline entry. Anything else (waits, scripts, finishing) is the request's, for every part.
 */
export const MERGE_PART_PARAMS = [
  'pdf_paper',
  'pdf_landscape',
  'pdf_print_background',
  'pdf_width',
  'pdf_height',
  'pdf_margin_top',
  'pdf_margin_right',
  'pdf_margin_bottom',
  'pdf_margin_left',
  'pdf_scale',
  'pdf_page_ranges',
  'pdf_prefer_css_page_size',
  'pdf_single_page',
  'pdf_header_html',
  'pdf_footer_html',
  'pdf_title',
] as const;

/** The uploads a part may name: a page or Markdown printed with the other uploads as its assets, or a PDF joined as it is. */
export const MERGE_FILE_KINDS = { '.html': 'html', '.htm': 'html', '.md': 'markdown', '.pdf': 'pdf' } as const;

const text = (schema: unknown) => Type.Optional(schema as ReturnType<typeof Type.String>);

/** One document printed (or an uploaded PDF joined) from several sources. Part of the one request schema. */
export const PDF_MERGE_PROPERTIES = {
  pdf_merge: Type.Optional(
    Type.Array(
      Type.Object(
        {
          url: Type.Optional(Type.String({ maxLength: 8192 })),
          html: text(DOCUMENT_PROPERTIES.html),
          markdown: text(DOCUMENT_PROPERTIES.markdown),
          file: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
          params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: MERGE_PART_PARAMS.length })),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: MAX_PDF_MERGE_PARTS,
        description: `One PDF printed from several sources in order, in one browser context, with an outline entry per part (titled by the part's pdf_title, else its page's title, else its url or file name): a list (or its JSON) of at most ${MAX_PDF_MERGE_PARTS} parts, each {"url"}, {"html"}, {"markdown"} or {"file": "<upload name>"} (an uploaded .html or .md printed with the other uploads as its assets, or a .pdf joined as it is), with optional "params" setting that part's ${MERGE_PART_PARAMS.join(', ')}. It is the whole document: give no url, html or markdown; the finishing parameters (pdf_a, pdf_sign, pdf_password, pdf_split, marks...) and the document information apply to the merged PDF, and pdf_max_pages/pdf_max_bytes to all of it. Implies format=pdf.`,
      },
    ),
  ),
};

export const PDF_MERGE_READERS = { pdf_merge: readJsonText };

export const PDF_MERGE_ALLOWED_TEXT = {
  pdf_merge: `a list (or JSON) of 1 to ${MAX_PDF_MERGE_PARTS} parts, each {url}, {html}, {markdown} or {file}, with optional layout params`,
};

/** What the join of the parts cannot keep: each part's tags and outline (qpdf joins pages, links and annotations). */
const LOST_IN_JOIN = ['pdf_ua', 'pdf_tagged', 'pdf_outline'] as const;
/** What describes one page, where a merge prints several: none of it is gathered from the parts. */
const ONE_PAGE = ['outputs', 'metadata', 'diagnostics', 'har'] as const;

/**
 * pdf_merge is the whole document, a pdf: the uploads (files) are what its parts name, and no other
 * source is printed. Before the implied defaults, since it implies format=pdf.
 */
export function checkMergeRequest(given: Map<string, unknown>, inputs: readonly string[]): void {
  const lost = LOST_IN_JOIN.find((name) => given.get(name) === true);
  if (lost !== undefined) throw incompatible(`pdf_merge joins the parts' pages, links and annotations, not their tags or outline, which ${lost} needs`, ['pdf_merge', lost]);
  const onePage = ONE_PAGE.find((name) => given.has(name) && given.get(name) !== false);
  if (onePage !== undefined) throw incompatible(`${onePage} describes one page; pdf_merge prints several into one PDF`, ['pdf_merge', onePage]);
  const other = inputs.find((name) => name !== 'files');
  if (other !== undefined) throw incompatible(`pdf_merge is the whole document; ${other} would be another: give it as a part`, ['pdf_merge', other]);
  if (!given.has('format')) given.set('format', 'pdf');
}

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}
