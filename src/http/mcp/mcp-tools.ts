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
  inputSchema: { type: 'object'; properties: Record<string, object>; additionalProperties: false };
}

const INPUT = 'Give url (or html, markdown or files).';

/**
 * The tools, by the format each makes. A tool whose format the engine does not have (yet) is left
 * out, so a format added to `FORMATS` brings its tool with it.
 */
const TOOL_SPECS: readonly Omit<CaptureTool, 'inputSchema'>[] = [
  { name: 'screenshot', description: `Screenshot of a web page, returned as an image downscaled to at most 1568 px on its longest side, with a link to the full-size file. ${INPUT}`, fixed: {}, formats: IMAGE_FORMATS },
  { name: 'pdf', description: `The page printed to PDF by Chromium, returned as a link to the file. ${INPUT}`, fixed: {}, formats: ['pdf'] },
  { name: 'record', description: `A video of the live page (scenario record), returned as a link to the file. ${INPUT}`, fixed: { scenario: 'record' }, formats: VIDEO_FORMATS },
  { name: 'markdown', description: `The page's main content as Markdown. ${INPUT}`, fixed: {}, formats: ['markdown'] },
  { name: 'links', description: `The links of the page, as absolute URLs. ${INPUT}`, fixed: {}, formats: ['links'] },
  { name: 'metadata', description: `What the page says about itself: title, description, Open Graph, Twitter, JSON-LD, icons. ${INPUT}`, fixed: {}, formats: ['metadata'] },
  { name: 'aria_snapshot', description: `The page's accessibility tree (ARIA snapshot). ${INPUT}`, fixed: {}, formats: ['aria'] },
  { name: 'scrape', description: `Structured data scraped from the page (tables, lists). ${INPUT}`, fixed: {}, formats: ['scrape'] },
];

/**
 * Parameters the MCP transport decides: the file is always stored and linked (`response_type`),
 * and a tool call is answered when the capture is done (no `async` or its webhook).
 */
const TRANSPORT_PARAMS = new Set(['format', 'scenario', 'response_type', 'async', 'webhook_url']);

type Property = { type?: string; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number; examples?: unknown[] };

let tools: CaptureTool[] | undefined;
let schemaProperties: Record<string, Property & object> | undefined;
const propertiesOfSchema = (): Record<string, Property & object> => (schemaProperties ??= captureParamsJsonSchema().properties as Record<string, Property & object>);

/** The tools the engine's formats allow, each with the request schema's parameters that apply to it. */
export function captureTools(): CaptureTool[] {
  tools ??= TOOL_SPECS.filter((spec) => spec.formats.every((format) => Object.hasOwn(FORMATS, format))).map((spec) => ({ ...spec, inputSchema: inputSchemaOf(spec) }));
  return tools;
}

function inputSchemaOf(tool: Omit<CaptureTool, 'inputSchema'>): CaptureTool['inputSchema'] {
  const all = propertiesOfSchema();
  const properties: Record<string, object> = {};
  if (tool.formats.length > 1) properties.format = { ...all.format, enum: [...tool.formats], default: tool.formats[0] };
  for (const [name, schema] of Object.entries(all)) {
    if (!TRANSPORT_PARAMS.has(name) && !Object.hasOwn(tool.fixed, name) && applies(tool, name)) properties[name] = withFewExamples(schema);
  }
  return { type: 'object', properties, additionalProperties: false };
}

/**
 * A model reads every tool's schema before each conversation: `device` lists its 120-odd names as
 * examples (4.5 kB a tool); three show the form, and a wrong name is refused with the list.
 */
function withFewExamples(schema: Property & object): object {
  return schema.examples && schema.examples.length > 3 ? { ...schema, examples: schema.examples.slice(0, 3) } : schema;
}

/** Every parameter the tool fixes (a still capture unless it says otherwise), and the format it captures in by default. */
export function decidedParams(tool: Omit<CaptureTool, 'inputSchema'>): Record<string, unknown> {
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
function applies(tool: Omit<CaptureTool, 'inputSchema'>, name: string): boolean {
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
