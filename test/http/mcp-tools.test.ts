import { describe, expect, it } from 'vitest';
import { captureTools } from '../../src/http/mcp/mcp-tools.js';
import { captureParamsJsonSchema } from '../../src/core/schema/capture-params.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { routeTable } from '../../src/http/routes.js';

// Issue 52: each MCP tool's input schema is the request schema's parameters that apply to it.
const tools = new Map(captureTools().map((tool) => [tool.name, tool]));
const names = (tool: string): string[] => Object.keys(tools.get(tool)?.inputSchema.properties ?? {});
const schema = captureParamsJsonSchema().properties as Record<string, { description?: string }>;

describe('the MCP tools, from the request schema', () => {
  it('list each parameter with the first sentence of the schema\'s own description, and none the transport decides', () => {
    for (const tool of tools.values()) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties)) {
        if (name === 'options' || name === 'format') continue;
        const { description } = property as { description: string };
        expect(schema[name]?.description?.startsWith(description), `${tool.name}.${name}`).toBe(true);
        expect(description, `${tool.name}.${name}`).toMatch(/\.$/);
      }
      for (const decided of ['response_type', 'async', 'webhook_url', 'scenario']) expect([...names(tool.name), ...(tool.optional ?? [])]).not.toContain(decided);
    }
  });

  // Issue 52: a model reads the whole list before every conversation; it was 182 kB, every parameter of every tool in full.
  it('fit in a model\'s context: the tools/list answer is at most 24 KiB, the rest of the schema in options', () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: captureTools().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) } });
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(24 * 1024);
    expect([...(tools.get('screenshot')?.optional ?? [])]).toEqual(expect.arrayContaining(['actions', 'cookies', 'headers', 'block_requests', 'mask']));
    expect([...(tools.get('pdf')?.optional ?? [])]).toEqual(expect.arrayContaining(['pdf_outline', 'pdf_watermark', 'cookies']));
    for (const other of ['pdf_paper', 'fps', 'response_type', 'async']) expect([...(tools.get('screenshot')?.optional ?? [])]).not.toContain(other);
  });

  it('give screenshot the image parameters and not those of documents or videos', () => {
    expect(names('screenshot')).toEqual(expect.arrayContaining(['url', 'html', 'viewport_width', 'full_page', 'clip_x', 'selector', 'image_width', 'omit_background', 'format']));
    for (const other of ['pdf_paper', 'pdf_margin_top', 'fps', 'scroll_easing']) expect(names('screenshot')).not.toContain(other);
  });

  it('give pdf its pdf_ parameters and not an image region or a video\'s', () => {
    expect(names('pdf')).toEqual(expect.arrayContaining(['pdf_paper', 'pdf_landscape', 'pdf_margin_top', 'pdf_header_html']));
    for (const other of ['format', 'clip_x', 'selector', 'image_width', 'fps', 'omit_background']) expect(names('pdf')).not.toContain(other);
  });

  it('give record the video parameters and no image region', () => {
    expect(tools.get('record')?.inputSchema.properties.format).toMatchObject({ enum: ['mp4', 'webm', 'gif'], default: 'mp4' });
    expect(names('record')).toEqual(expect.arrayContaining(['duration', 'fps', 'show_cursor']));
    for (const other of ['full_page', 'clip_x', 'selector', 'pdf_paper', 'scroll_easing']) expect(names('record')).not.toContain(other);
  });

  it('are served at {base}/v1/mcp, which the OpenAPI document names with the key in its header', () => {
    const { paths } = buildOpenApiDocument(routeTable()) as { paths: Record<string, { post?: { operationId?: string; security?: unknown } }> };
    expect(paths['/v1/mcp']?.post).toMatchObject({ operationId: 'mcp', security: [{ ApiKeyHeader: [] }] });
  });
});
