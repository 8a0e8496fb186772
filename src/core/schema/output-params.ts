import Type from 'typebox';
import { CaptureError } from '../errors/catalogue.js';
import { CONTENT_FORMATS, isContentFormat, isVideoFormat, type CaptureFormat, type ContentFormat } from './formats.js';

/**
 * What a render says beside what it shows: how Markdown and HTML pick the page's content, which
 * links and elements are read, and the outputs stored beside the main file. Part of the one schema.
 */
export const OUTPUT_PROPERTIES = {
  // No default in the schema: a parameter every capture carried would change every cache key.
  content: Type.Optional(
    Type.Enum(['main', 'full'], {
      description:
        'format=markdown or html (and outputs=markdown or html): `main` (the default) keeps the main content as a reader view does (Mozilla Readability); `full` the whole body minus scripts, styles, hidden elements and hide_selectors.',
    }),
  ),
  links_selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'format=links (or outputs=links): only the links inside the elements this CSS selector matches.' })),
  scrape: Type.Optional(
    Type.Array(
      Type.Object({
        selector: Type.String({ minLength: 1, maxLength: 1024 }),
        attributes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 50 })),
      }),
      {
        minItems: 1,
        maxItems: 20,
        description: 'format=scrape (or outputs=scrape): a JSON list of `{ "selector", "attributes"? }`; each selector\'s elements are answered with their text, HTML, attributes (those named, or all) and box.',
      },
    ),
  ),
  outputs: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: `Comma-separated outputs stored beside the main file from the same render (one navigation): ${CONTENT_FORMATS.join(', ')}. Answered as \`<name>_url\` with response_type=json (or async=true); with cache=true they are cached with the file.`,
    }),
  ),
} as const;

export const OUTPUT_ALLOWED_TEXT: Record<string, string> = {
  scrape: 'a JSON list of 1 to 20 { "selector", "attributes"? }',
  outputs: `comma-separated names among ${CONTENT_FORMATS.join(', ')}`,
};

export const OUTPUT_READERS: Partial<Record<keyof typeof OUTPUT_PROPERTIES, (value: unknown) => unknown>> = {
  scrape: (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  },
};

export const OUTPUT_CHECKS: Partial<Record<keyof typeof OUTPUT_PROPERTIES, (value: never) => string | undefined>> = {
  outputs: (value: string) => {
    const names = value.split(',').map((name) => name.trim());
    const unknown = names.find((name) => !(CONTENT_FORMATS as readonly string[]).includes(name));
    if (unknown !== undefined) return `unknown output '${unknown}'`;
    if (new Set(names).size !== names.length) return 'an output is named twice';
    return undefined;
  },
};

/** The outputs stored beside the main file (`outputs=`), in the order given. */
export function outputsOf(params: { outputs?: string }): ContentFormat[] {
  return params.outputs === undefined ? [] : (params.outputs.split(',').map((name) => name.trim()) as ContentFormat[]);
}

type Given = Map<string, unknown>;

function incompatible(message: string, params: string[]): CaptureError {
  return new CaptureError('INCOMPATIBLE_PARAMETERS', message, { details: { params } });
}

/** Cross-parameter rules of the outputs; each refusal names the parameters involved. */
export function checkOutputCombinations(given: Given, missing: (name: 'scrape', message: string) => CaptureError): void {
  const format = (given.get('format') ?? 'png') as CaptureFormat;
  const sidecars = outputsOf({ outputs: given.get('outputs') as string | undefined });
  const produced = new Set<string>([format, ...sidecars]);
  if (sidecars.length > 0) {
    if (isVideoFormat(format) || isContentFormat(format)) throw incompatible(`outputs are stored beside an image or a pdf, not beside format '${format}'`, ['outputs', 'format']);
    // A cached entry keeps its sidecars whatever the answer: response_type=json of the same request lists them.
    if (given.get('response_type') !== 'json' && given.get('async') !== true && given.get('cache') !== true) throw incompatible('outputs are answered as <name>_url in the JSON result: add response_type=json (or async=true)', ['outputs', 'response_type']);
  }
  if (produced.has('scrape') && !given.has('scrape')) throw missing('scrape', "format=scrape or outputs=scrape needs scrape: a JSON list of { \"selector\", \"attributes\"? }");
  const needs: [string, string[]][] = [
    ['scrape', ['scrape']],
    ['links_selector', ['links']],
    ['content', ['markdown', 'html']],
  ];
  for (const [name, formats] of needs) {
    if (given.has(name) && !formats.some((wanted) => produced.has(wanted))) throw incompatible(`${name} applies to ${formats.map((wanted) => `format=${wanted}`).join(' or ')} (or outputs=), not to format '${format}'`, [name, 'format']);
  }
  if (isContentFormat(format)) {
    // Only the ARIA snapshot is of one element; the other outputs read the whole page.
    const region = ['selector', 'clip_x', 'full_page'].find((name) => given.has(name) && given.get(name) !== false && (name !== 'selector' || format !== 'aria'));
    if (region !== undefined) throw incompatible(`${region} chooses part of a picture; format '${format}' reads the page${format === 'aria' ? '' : ' (selector applies to format=aria)'}`, [region, 'format']);
  }
}
