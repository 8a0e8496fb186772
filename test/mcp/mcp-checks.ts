import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { decode, near } from '../helpers/pixels.js';
import type { Handler } from '../helpers/fixture-server.js';
import { html } from '../helpers/fixture-server.js';
import { codeBlocks } from '../helpers/docs-pages.js';

interface ClientConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  type?: string;
  url?: string;
  headers?: Record<string, string>;
}

/** The server configurations docs/mcp.md gives a client to paste, stdio's and HTTP's: the tests connect as they say. */
export function documentedConfigs(): { stdio: ClientConfig; http: ClientConfig } {
  const servers = codeBlocks('docs/mcp.md')
    .filter((block) => block.lang === 'json')
    .map((block) => (JSON.parse(block.code) as { mcpServers: Record<string, ClientConfig> }).mcpServers['capture-engine']);
  const stdio = servers.find((server) => server?.command !== undefined);
  const http = servers.find((server) => server?.url !== undefined);
  expect(stdio && http).toBeDefined();
  // The README gives the stdio one to paste: the same.
  const readme = codeBlocks('README.md').filter((block) => block.lang === 'json' && block.code.includes('mcpServers'));
  expect(readme.map((block) => (JSON.parse(block.code) as { mcpServers: Record<string, ClientConfig> }).mcpServers['capture-engine'])).toEqual([stdio]);
  return { stdio: stdio as ClientConfig, http: http as ClientConfig };
}

/** Red on the left half, blue on the right: a downscaled image must keep both, in place. */
export const MCP_FIXTURES: Record<string, Handler> = {
  '/halves': (_req, res) => html(res, '<style>body{margin:0;display:flex;height:100vh}div{flex:1}</style><body><div style="background:#ff0000"></div><div style="background:#0000ff"></div></body>'),
  '/article': (_req, res) => html(res, '<title>Tea</title><body><main><h1>Green tea</h1><p>Steep it for <strong>two</strong> minutes.</p><ul><li>Sencha</li><li>Matcha</li></ul></main></body>'),
};

/** The tool names a client lists, and the input schema of each. */
export async function expectCaptureTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect([...byName.keys()]).toEqual(['screenshot', 'pdf', 'record', 'markdown', 'links', 'metadata', 'aria_snapshot', 'scrape']);
  const screenshot = byName.get('screenshot')?.inputSchema.properties as Record<string, { description?: string; enum?: string[] }>;
  expect(screenshot.url?.description).toMatch(/http or https URL/);
  expect(screenshot.viewport_width?.description).toBe('Viewport width in px.');
  expect(screenshot.format?.enum).toEqual(['png', 'jpg', 'webp', 'avif']);
  expect(Object.keys(screenshot)).not.toContain('pdf_paper');
  expect(Object.keys(screenshot)).not.toContain('response_type');
  const pdf = byName.get('pdf')?.inputSchema.properties as Record<string, unknown>;
  expect(Object.keys(pdf)).toContain('pdf_paper');
  expect(Object.keys(pdf)).not.toContain('format');
  expect(Object.keys(pdf)).not.toContain('clip_x');
  const record = byName.get('record')?.inputSchema.properties as Record<string, unknown>;
  expect(Object.keys(record)).toEqual(expect.arrayContaining(['duration', 'fps']));
  expect(Object.keys(record)).not.toContain('scenario');
}

/**
 * A 2000 x 1000 screenshot comes back as an image of 1568 x 784 whose halves are red and blue, and a
 * link to the full-size file, which `readLinked` fetches.
 */
export async function expectScreenshot(client: Client, url: string, readLinked: (uri: string) => Promise<Buffer>): Promise<void> {
  const result = (await client.callTool({ name: 'screenshot', arguments: { url, viewport_width: 2000, viewport_height: 1000 } })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const image = result.content.find((part) => part.type === 'image');
  expect(image?.mimeType).toBe('image/png');
  const pixels = await decode(Buffer.from(image?.type === 'image' ? image.data : '', 'base64'));
  expect([pixels.width, pixels.height]).toEqual([1568, 784]);
  expect(near(pixels.at(200, 400), '#ff0000')).toBe(true);
  expect(near(pixels.at(1368, 400), '#0000ff')).toBe(true);
  const link = result.content.find((part) => part.type === 'resource_link');
  expect(link?.mimeType).toBe('image/png');
  const full = await sharp(await readLinked(link?.type === 'resource_link' ? link.uri : '')).metadata();
  expect([full.width, full.height]).toEqual([2000, 1000]);
}

/** The article page as Markdown, inline, and a link to the stored file. */
export async function expectMarkdown(client: Client, url: string): Promise<void> {
  const result = (await client.callTool({ name: 'markdown', arguments: { url } })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const [text, link] = result.content;
  // The article's own h1 leads, as the markdown format's main-content reading keeps it.
  expect(text?.type === 'text' ? text.text : '').toBe('# Green tea\n\nSteep it for **two** minutes.\n\n-   Sencha\n-   Matcha\n');
  expect(link).toMatchObject({ type: 'resource_link', mimeType: expect.stringMatching(/^text\/markdown/) });
}

/** The catalogue's JSON error a refused tool call carries. */
export function refusal(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const text = result.content.find((part) => part.type === 'text');
  return JSON.parse(text?.type === 'text' ? text.text : '{}') as Record<string, unknown>;
}
