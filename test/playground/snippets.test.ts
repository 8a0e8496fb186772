import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readableTimings } from '../../src/playground/answer-view.js';
import { clientCall, curlCommand, outputName, shellWord } from '../../src/playground/snippets.js';
import { rangeOf } from '../../src/playground/schema-form.js';
import { groupOf } from '../../src/playground/param-groups.js';
import { captureParamsJsonSchema } from '../../src/core/schema/capture-params.js';

const shape = { origin: 'http://localhost:3000', basePath: '/api', keyed: true };

describe('the playground snippets', () => {
  it.each(["it's", '$HOME `id` "quoted"', 'two\nlines', '{"url":"https://example.com/?a=1&b=2"}', 'plain-word'])('quotes %j so that bash reads it back unchanged', (text) => {
    expect(execFileSync('bash', ['-c', `printf %s ${shellWord(text)}`], { encoding: 'utf8' })).toBe(text);
  });

  it('writes curl with the key from the environment, never the key itself, and the file named by its format', () => {
    const curl = curlCommand({ ...shape, params: { url: 'https://example.com', format: 'jpeg' } });
    expect(curl).toContain('-H "X-API-Key: $CAPTURE_API_KEY"');
    expect(curl).toContain(`--data-binary '{"url":"https://example.com","format":"jpeg"}'`);
    expect(curl.endsWith('-o capture.jpg')).toBe(true);
    expect(curlCommand({ ...shape, keyed: false, params: { url: 'https://example.com' } })).not.toContain('X-API-Key');
    expect(curlCommand({ ...shape, params: { url: 'https://example.com', response_type: 'json' } })).not.toContain(' -o ');
    expect(outputName({})).toBe('capture.png');
  });

  it('calls the client method that answers as the request asks', () => {
    expect(clientCall({ ...shape, params: { url: 'https://example.com', full_page: true } })).toContain('await client.captureToFile({\n  url: "https://example.com",\n  full_page: true\n}, "capture.png");');
    const json = clientCall({ ...shape, params: { url: 'https://example.com', response_type: 'json' } });
    expect(json).toContain('client.captureJson({\n  url: "https://example.com"\n})');
    expect(json).not.toContain('response_type');
    expect(clientCall({ ...shape, params: { url: 'https://example.com', async: true } })).toContain('client.waitFor(id)');
    expect(clientCall({ ...shape, basePath: '/shots', keyed: false, params: {} })).toContain('createCaptureClient({ baseUrl: "http://localhost:3000", basePath: "/shots" })');
  });

  it('reads Server-Timing and ranges for people', () => {
    expect(readableTimings('queue;dur=1.2, navigate;dur=80.5, cache;desc="HIT", total;dur=90')).toBe('queue 1.2 · navigate 80.5 · cache HIT · total 90');
    expect(rangeOf({ type: 'integer', minimum: 100, maximum: 7680, default: 1920 })).toBe('integer 100–7680, default 1920');
    expect(rangeOf({ enum: ['a', 'b'], default: 'a' })).toBe('choice, default a');
    expect(rangeOf({ type: 'string', maxLength: 64 })).toBe('string, up to 64 characters');
  });

  it('places the parameters every request sets first, and every parameter of the schema somewhere', () => {
    const names = Object.keys(captureParamsJsonSchema().properties as Record<string, unknown>);
    expect(names.filter((name) => groupOf(name).title === 'Page and output')).toEqual(['url', 'format', 'viewport_width', 'viewport_height', 'full_page', 'quality', 'response_type', 'device']);
    expect(groupOf('scroll_into_view').title).toBe('Element');
    expect(groupOf('scroll_delay').title).toBe('Video');
    expect(groupOf('pdf_outline').title).toBe('PDF');
    // "More" is for a parameter added later: today every one has its section.
    expect(names.filter((name) => groupOf(name).title === 'More' && name !== 'files' && name !== 'api_key')).toEqual([]);
  });
});
