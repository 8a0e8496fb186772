import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import type { CaptureStorage } from '../../core/storage.js';
import { captureErrors } from '../../core/errors/factories.js';
import { toCaptureError } from '../../core/errors/to-capture-error.js';
import { captureTools, decidedParams, type CaptureTool } from './mcp-tools.js';

/** A finished capture, stored: its `response_type=json` description, its storage key, and where a client fetches it. */
export interface StoredCaptureLink {
  description: Record<string, unknown>;
  key: string;
  uri: string;
}

/** Runs one capture with the tool's parameters: the HTTP service's capture path, or a local engine. */
export type RunCapture = (params: Record<string, unknown>, signal: AbortSignal) => Promise<StoredCaptureLink>;

/** A refusal answered by the capture path, as its JSON error (code, message, details). */
export class ToolRefusal extends Error {
  constructor(readonly body: Record<string, unknown>) {
    super(String(body.error ?? body.code));
  }
}

/**
 * The longest side of an image a model takes whole: Anthropic's vision guide resizes anything
 * larger (docs.anthropic.com, "Vision", image size); the full-size file stays behind the link.
 */
export const MODEL_IMAGE_SIDE = 1568;
/** Text returned inline; the whole file is behind the link. */
const INLINE_TEXT_CHARS = 100_000;

/** Named by the interface's version, as the OpenAPI document is. */
const SERVER_INFO = { name: 'capture-engine', version: '1' };

/** One MCP server over `run`: a stdio process keeps one; the HTTP service makes one per request (stateless). */
export function captureMcpServer(storage: CaptureStorage, run: RunCapture): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  const tools = captureTools();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}: ${tools.map(({ name }) => name).join(', ')}`);
    try {
      const stored = await run(paramsOf(tool, request.params.arguments ?? {}), extra.signal);
      return { content: await contentOf(tool, stored, storage) };
    } catch (error) {
      const body = error instanceof ToolRefusal ? error.body : (toCaptureError(error).toJSON() as Record<string, unknown>);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
    }
  });
  return server;
}

/** The caller's arguments within the tool's schema, with what the tool decides. */
function paramsOf(tool: CaptureTool, args: Record<string, unknown>): Record<string, unknown> {
  const params = Object.assign(Object.create(null) as Record<string, unknown>, decidedParams(tool));
  const { options = {}, ...listed } = args;
  // A parameter of `options` given beside the listed ones is taken as well: models do that.
  for (const [name, value] of Object.entries(listed)) {
    if (!Object.hasOwn(tool.inputSchema.properties, name) && !tool.optional.has(name)) {
      throw captureErrors.invalidParameter(name, `'${name}' does not apply to the ${tool.name} tool`, Object.keys(tool.inputSchema.properties).join(', '));
    }
    if (name === 'format' && !tool.formats.includes(String(value))) throw captureErrors.invalidParameter('format', `The ${tool.name} tool makes ${tool.formats.join(', ')}, not ${String(value)}`, tool.formats.join(', '));
    params[name] = value;
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw captureErrors.invalidParameter('options', 'options is an object of capture parameters', 'an object');
  for (const [name, value] of Object.entries(options)) {
    if (!tool.optional.has(name)) throw captureErrors.invalidParameter(`options.${name}`, `'${name}' is not a parameter of the ${tool.name} tool's options`, [...tool.optional].join(', '));
    params[name] = value;
  }
  return params;
}

async function contentOf(tool: CaptureTool, stored: StoredCaptureLink, storage: CaptureStorage): Promise<CallToolResult['content']> {
  const file = await storage.get(stored.key);
  if (!file) throw new Error(`Stored capture ${stored.key} is gone`);
  const name = stored.key.slice(stored.key.indexOf('/') + 1);
  const link = { type: 'resource_link' as const, uri: stored.uri, name, mimeType: file.contentType, size: file.size };
  const description = { type: 'text' as const, text: JSON.stringify(stored.description) };
  if (tool.name === 'screenshot') return [await forModel(await read(file.stream()), file.contentType), link, description];
  if (file.contentType.startsWith('text/') || file.contentType.includes('json') || file.contentType.includes('yaml')) {
    const text = (await read(file.stream())).toString('utf8');
    const inline = text.length > INLINE_TEXT_CHARS ? `${text.slice(0, INLINE_TEXT_CHARS)}\n\n[cut at ${INLINE_TEXT_CHARS} characters: the whole file is at ${stored.uri}]` : text;
    return [{ type: 'text', text: inline }, link, description];
  }
  return [link, description];
}

/** The image within `MODEL_IMAGE_SIDE`, in a type models read (png, jpeg or webp; avif becomes png). */
async function forModel(data: Buffer, contentType: string): Promise<CallToolResult['content'][number]> {
  const resized = sharp(data).resize({ width: MODEL_IMAGE_SIDE, height: MODEL_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true });
  const mimeType = contentType === 'image/jpeg' || contentType === 'image/webp' ? contentType : 'image/png';
  const encoded = await (mimeType === 'image/jpeg' ? resized.jpeg() : mimeType === 'image/webp' ? resized.webp() : resized.png()).toBuffer();
  return { type: 'image', data: encoded.toString('base64'), mimeType };
}

async function read(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
