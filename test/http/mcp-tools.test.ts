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
  it('take each parameter with the schema\'s own description, and none the transport decides', () => {
    for (const tool of tools.values()) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties)) expect((property as { description?: string }).description, `${tool.name}.${name}`).toBe(schema[name]?.description);
      for (const decided of ['response_type', 'async', 'webhook_url', 'scenario']) expect(names(tool.name)).not.toContain(decided);
    }
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
