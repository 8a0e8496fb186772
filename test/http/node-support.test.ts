import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { routeTable } from '../../src/http/routes.js';

/**
 * Which Node.js versions the project runs on is said in four places (issue 50): package.json's
 * `engines`, the README, the OpenAPI document's `info`, and the lines `npm test` runs besides the
 * lowest (scripts/node-lines.mjs). They must say the same, and the container image's Node be one of them.
 */
const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
/** The lines `npm test` runs besides the machine's own. */
const nodeLines = (): number[] | undefined => /const NODE_LINES = \[([\d, ]+)\];/.exec(read('scripts/node-lines.mjs'))?.[1]?.split(',').map(Number);

describe('the Node.js versions supported and tested', () => {
  it('are the same in package.json, the README, the OpenAPI info and the lines npm test runs', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const minimum = /^>=(\d+)\.(\d+)$/.exec(engines);
    expect(minimum, engines).not.toBeNull();
    const [, major, minor] = minimum!;
    const lines = nodeLines();
    expect(lines).toBeDefined();
    const tested = [Number(major), ...lines!];
    const said = `${tested.slice(0, -1).join(', ')} and ${tested.at(-1)}`;

    const { description } = (buildOpenApiDocument(routeTable()) as { info: { description: string } }).info;
    expect(description).toContain(`Runs on Node.js ${major}.${minor} or newer; tested on Node.js ${said}.`);
    expect(read('README.md')).toMatch(new RegExp(`\\*\\*Node versions:\\*\\* ${major}\\.${minor} or newer, tested on ${said}\\.`));
  });

  it('the container image builds and runs on one Node line, among those npm test runs', () => {
    const bases = [...read('Dockerfile').matchAll(/^FROM docker\.io\/library\/node:(\d+)-bookworm-slim\b/gm)].map((match) => Number(match[1]));
    expect(bases).toHaveLength(2);
    expect(new Set(bases).size).toBe(1);
    expect(nodeLines()).toContain(bases[0]);
  });
});
