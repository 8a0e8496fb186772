import { CaptureError } from '../../core/errors/catalogue.js';
import { captureParamsJsonSchema } from '../../core/schema/capture-params.js';
import { checkCombinations } from '../../core/schema/parameter-rules.js';
import { FORMATS, IMAGE_FORMATS, VIDEO_FORMATS, type CaptureFormat } from '../../core/schema/formats.js';

/** An MCP tool over the capture path: the parameters it fixes, and the formats a caller may pick from. */
export interface CaptureTool {
  name: string;
  description: string;
  /** Set by the tool, never by the caller. */
  fixed: Record<string, unknown>;
  /** The formats the caller may choose; the first is the default. One format: fixed. */
  formats: readonly string[];
  /** Parameters listed in the tool's schema besides the page's input and readiness (`PAGE`). */
  listed: readonly string[];
  inputSchema: { type: 'object'; properties: Record<string, object>; additionalProperties: false };
  /** The other parameters of the request schema that apply to the tool: given inside `options`. */
  optional: ReadonlySet<string>;
}

const INPUT = 'Give url (or html or markdown).';

/** Every tool's: what to load and when it is ready. */
const PAGE = ['url', 'html', 'markdown', 'wait_for_selector', 'delay', 'timeout', 'device', 'block_cookies', 'block_ads', 'hide_selectors'];
const VIEWPORT = ['viewport_width', 'viewport_height', 'dark_mode'];

/**
 * The tools, by the format each makes. A tool whose format the engine does not have (yet) is left
 * out, so a format added to `FORMATS` brings its tool with it.
 */
type ToolSpec = Omit<CaptureTool, 'inputSchema' | 'optional'>;

const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'screenshot',
    description: `Screenshot of a web page, returned as an image downscaled to at most 1568 px on its longest side, with a link to the full-size file. ${INPUT}`,
    fixed: {},
    formats: IMAGE_FORMATS,
    listed: [...VIEWPORT, 'full_page', 'selector', 'clip_x', 'clip_y', 'clip_width', 'clip_height', 'device_scale_factor', 'image_width', 'omit_background', 'quality'],
  },
  {
    name: 'pdf',
    description: `The page printed to PDF by Chromium, returned as a link to the file. ${INPUT}`,
    fixed: {},
    formats: ['pdf'],
    listed: ['pdf_paper', 'pdf_landscape', 'pdf_print_background', 'pdf_margin_top', 'pdf_margin_right', 'pdf_margin_bottom', 'pdf_margin_left', 'pdf_scale', 'pdf_page_ranges', 'pdf_header_html', 'pdf_footer_html', 'pdf_single_page'],
  },
  { name: 'record', description: `A video of the live page (scenario record), returned as a link to the file. ${INPUT}`, fixed: { scenario: 'record' }, formats: VIDEO_FORMATS, listed: [...VIEWPORT, 'duration', 'fps', 'show_cursor'] },
  { name: 'markdown', description: `The page's main content as Markdown. ${INPUT}`, fixed: {}, formats: ['markdown'], listed: ['content'] },
  { name: 'links', description: `The links of the page, as absolute URLs. ${INPUT}`, fixed: {}, formats: ['links'], listed: ['links_selector'] },
  { name: 'metadata', description: `What the page says about itself: title, description, Open Graph, Twitter, JSON-LD, icons. ${INPUT}`, fixed: {}, formats: ['metadata'], listed: [] },
  { name: 'aria_snapshot', description: `The page's accessibility tree (ARIA snapshot). ${INPUT}`, fixed: {}, formats: ['aria'], listed: ['selector'] },
  { name: 'scrape', description: `Structured data scraped from the page (tables, lists). ${INPUT}`, fixed: {}, formats: ['scrape'], listed: ['scrape'] },
];

/** The schema of `options`: one line, not the hundred-odd parameters a model would read before every conversation. */
const OPTIONS = {
  type: 'object',
  description: 'Any other capture parameter that applies to this tool, by name, as the HTTP API takes it (docs/parameters.md): actions, cookies, headers, block_requests...',
};

/**
 * Parameters the MCP transport decides: the file is always stored and linked (`response_type`),
 * and a tool call is answered when the capture is done (no `async` or its webhook).
 */
const TRANSPORT_PARAMS = new Set(['format', 'scenario', 'response_type', 'async', 'webhook_url']);

type Property = { type?: string; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number; examples?: unknown[]; description?: string };

let tools: CaptureTool[] | undefined;
let schemaProperties: Record<string, Property & object> | undefined;
const propertiesOfSchema = (): Record<string, Property & object> => (schemaProperties ??= captureParamsJsonSchema().properties as Record<string, Property & object>);

/**
 * The tools the engine's formats allow. Each lists the parameters most calls need, with the first
 * sentence of their descriptions; the request schema's other parameters that apply are taken in `options`.
 */
export function captureTools(): CaptureTool[] {
  tools ??= TOOL_SPECS.filter((spec) => spec.formats.every((format) => Object.hasOwn(FORMATS, format))).map(toolOf);
  return tools;
}

function toolOf(spec: ToolSpec): CaptureTool {
  const all = propertiesOfSchema();
  const applying = Object.keys(all).filter((name) => !TRANSPORT_PARAMS.has(name) && !Object.hasOwn(spec.fixed, name) && applies(spec, name));
  const wanted = new Set([...PAGE, ...spec.listed]);
  const properties: Record<string, object> = {};
  if (spec.formats.length > 1) properties.format = { type: 'string', enum: [...spec.formats], default: spec.formats[0], description: `The file's format: ${spec.formats.join(', ')}.` };
  for (const name of applying) if (wanted.has(name)) properties[name] = short(all[name] as Property);
  const optional = new Set(applying.filter((name) => !Object.hasOwn(properties, name)));
  properties.options = OPTIONS;
  return { ...spec, inputSchema: { type: 'object', properties, additionalProperties: false }, optional };
}

/** A parameter's schema as a tool lists it: the first sentence of its description, one example at most. */
function short({ description, examples, ...schema }: Property & object): object {
  const sentence = description === undefined ? undefined : (/^.*?\.(?=\s+[A-Z(]|$)/s.exec(description)?.[0] ?? description);
  return { ...schema, ...(sentence === undefined ? {} : { description: sentence }), ...(examples && examples.length > 0 ? { examples: examples.slice(0, 1) } : {}) };
}

/** Every parameter the tool fixes (a still capture unless it says otherwise), and the format it captures in by default. */
export function decidedParams(tool: ToolSpec): Record<string, unknown> {
  return { scenario: 'static', ...tool.fixed, format: tool.formats[0] as CaptureFormat, response_type: 'json' };
}

/** What the rules say when a parameter needs another one the sample left out. */
class MissingCompanion extends CaptureError {
  constructor(readonly param: string) {
    super('INVALID_PARAMETER', param);
  }
}

/**
 * Whether the schema's own rules take `name` with what the tool decides. It is given a value other
 * than its default, with the parameters the rules say it needs (`clip_y` needs `clip_x`, `image_fit`
 * needs `image_width`), added as they ask for them; it does not apply when a refusal names one of
 * those with a parameter the tool decides (`fps` for a pdf, `clip_y` for a video).
 */
function applies(tool: ToolSpec, name: string): boolean {
  const decided = decidedParams(tool);
  const given = new Map<string, unknown>([...Object.entries(decided), [name, sampleOf(name)]]);
  const tried = new Set([name]);
  for (let companions = 0; companions < 6; companions++) {
    try {
      checkCombinations(given as Map<never, unknown>, (param) => new MissingCompanion(param));
      return true;
    } catch (error) {
      if (!(error instanceof CaptureError) || (error.code !== 'INCOMPATIBLE_PARAMETERS' && !(error instanceof MissingCompanion))) return true;
      const params = error instanceof MissingCompanion ? [error.param] : ((error.details.params ?? []) as string[]);
      if (params.some((param) => tried.has(param)) && params.some((param) => Object.hasOwn(decided, param))) return false;
      const needed = params.filter((param) => !given.has(param));
      // Nothing left to add: a refusal among parameters the caller chooses, which a caller can avoid.
      if (needed.length === 0) return true;
      for (const param of needed) {
        given.set(param, sampleOf(param));
        tried.add(param);
      }
    }
  }
  return true;
}

/** A value of `name` other than its default, as a caller who means to use it would give. */
function sampleOf(name: string): unknown {
  const schema: Property = propertiesOfSchema()[name] ?? {};
  if (schema.enum) return schema.enum.find((value) => value !== schema.default) ?? schema.enum[0];
  if (schema.type === 'boolean') return schema.default !== true;
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum !== undefined && schema.minimum !== schema.default ? schema.minimum : (schema.maximum ?? 1);
  if (schema.type === 'array') return [];
  if (schema.type === 'object') return {};
  return schema.examples?.[0] ?? 'x';
}
