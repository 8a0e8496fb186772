import { readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BUILT_CLI } from '../helpers/built-service.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { closedPort } from '../helpers/ports.js';
import { MCP_FIXTURES, documentedConfigs, expectCaptureTools, expectMarkdown, expectScreenshot, refusal } from './mcp-checks.js';

// Issue 52: `capture-engine mcp`, the built CLI, driven by the SDK's own client over stdio.
let fixtures: FixtureServer;
let client: Client;
let storageDir: string;

beforeAll(async () => {
  fixtures = await startFixtureServer(MCP_FIXTURES);
  storageDir = mkdtempSync(path.join(inject('testTempRoot'), 'mcp-stdio-'));
  const { port } = new URL(fixtures.origin);
  // As docs/mcp.md configures a client: `npx capture-engine mcp`, here the built CLI, with the
  // documented variable allowing the fixtures' port instead of 8080 (every other private address refused).
  const { command, args = [], env = {} } = documentedConfigs().stdio;
  expect([command, args[0], Object.keys(env)]).toEqual(['npx', 'capture-engine', ['CAPTURE_ALLOW_ADDRESSES']]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_CLI, ...args.slice(1), '--storage-dir', storageDir],
    env: { ...(process.env as Record<string, string>), CAPTURE_ALLOW_PRIVATE_NETWORKS: 'false', CAPTURE_ALLOW_ADDRESSES: `127.0.0.1:${port}` },
    stderr: 'pipe',
  });
  client = new Client({ name: 'mcp-stdio-test', version: '1' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await fixtures?.close();
});

describe('capture-engine mcp over stdio', () => {
  it('lists the tools, each with the request schema parameters that apply to it', async () => {
    await expectCaptureTools(client);
  });

  it('answers a screenshot as image content a model takes, linking the full-size file on disk', async () => {
    await expectScreenshot(client, fixtures.url('/halves'), async (uri) => {
      expect(uri.startsWith('file://')).toBe(true);
      const file = fileURLToPath(uri);
      expect(path.dirname(path.dirname(file))).toBe(storageDir);
      return readFile(file);
    });
  });

  it.each([
    ['pdf', {}, 'application/pdf', '%PDF-'],
    ['record', { duration: 1, viewport_width: 320, viewport_height: 240 }, 'video/mp4', 'ftyp'],
  ])('answers the %s tool with a link to the stored file', async (name, args, mimeType, magic) => {
    const result = (await client.callTool({ name, arguments: { url: fixtures.url('/halves'), ...args } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const link = result.content.find((part) => part.type === 'resource_link');
    expect(link).toMatchObject({ mimeType });
    const file = await readFile(fileURLToPath(link?.type === 'resource_link' ? link.uri : ''));
    expect(file.subarray(0, 12).toString('latin1')).toContain(magic);
    expect(result.content.some((part) => part.type === 'image')).toBe(false);
  });

  it('answers the markdown tool with the page as Markdown', async () => {
    await expectMarkdown(client, fixtures.url('/article'));
  });

  it('refuses a private address the operator did not allow, with the catalogue code', async () => {
    const result = (await client.callTool({ name: 'screenshot', arguments: { url: `http://127.0.0.1:${await closedPort()}/` } })) as CallToolResult;
    expect(refusal(result).code).toBe('URL_NOT_ALLOWED');
  });

  it('refuses a parameter that does not apply to the tool, naming it', async () => {
    const result = (await client.callTool({ name: 'screenshot', arguments: { url: fixtures.url('/halves'), pdf_paper: 'A3' } })) as CallToolResult;
    expect(refusal(result)).toMatchObject({ code: 'INVALID_PARAMETER', param: 'pdf_paper', error: expect.stringContaining('screenshot') });
    const inOptions = (await client.callTool({ name: 'screenshot', arguments: { url: fixtures.url('/halves'), options: { pdf_paper: 'A3' } } })) as CallToolResult;
    expect(refusal(inOptions)).toMatchObject({ code: 'INVALID_PARAMETER', param: 'options.pdf_paper' });
  });

  it('takes the parameters a tool does not list in options', async () => {
    const result = (await client.callTool({ name: 'markdown', arguments: { url: fixtures.url('/article'), options: { scripts: "document.querySelector('h1').textContent = 'Black tea'" } } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^# Black tea\n/) });
  });
});
