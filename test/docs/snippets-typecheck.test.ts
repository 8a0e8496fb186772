import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { signQuery } from '../../src/access/link-signature.js';
import { webhookHeaders } from '../../src/jobs/webhook-signature.js';
import { ROOT, codeBlocks, docPages, type CodeBlock } from '../helpers/docs-pages.js';

/** Every code block of the README and the docs pages, and the test that checks it. */
const blocks = docPages().flatMap(codeBlocks);
const ofLang = (...langs: string[]): CodeBlock[] => blocks.filter((block) => langs.includes(block.lang));
const TYPED = ofLang('ts', 'js');
const SHELL = ofLang('sh');
/** Languages and who checks them: here, or test/docs/snippets-run.test.ts (sh and js run there). */
const CHECKED = ['ts', 'js', 'sh', 'python', 'http', 'text', 'json'];

/**
 * Inside the repository, so that `capture-engine` resolves to the package itself, as in an
 * application that installed it: the built package's exports and type declarations (dist/).
 */
const DIR = path.join(ROOT, 'test/.artifacts/docs-snippets');
const fileOf = (block: CodeBlock): string => path.join(DIR, `${block.where.replace(/[/.:]/g, '-')}.${block.lang}`);

/** Strict, as an application of today compiles: ES modules on Node, the DOM's fetch types too. */
const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  allowJs: true,
  checkJs: true,
  noEmit: true,
};

describe('the code blocks of the README and the docs', () => {
  it('are each of a language a test checks', () => {
    expect(blocks.filter((block) => !CHECKED.includes(block.lang)).map((block) => `${block.where} (${block.lang || 'no language'})`)).toEqual([]);
  });

  it('say why in their first line when they are not run, and are few', () => {
    const marked = blocks.filter((block) => block.notRun !== undefined);
    for (const block of marked) expect(block.notRun, block.where).toMatch(/\w{3,}.*\w{3,}/);
    expect(marked.every((block) => ['sh', 'js'].includes(block.lang))).toBe(true);
    expect(marked.length).toBeLessThan(blocks.length / 4);
  });

  // What each means is checked where it is used: docs/mcp.md's client configurations by test/mcp.
  it.each(ofLang('json').map((block) => [block.where, block]))('%s (json) is valid JSON', (_, block) => {
    expect(() => JSON.parse(block.code)).not.toThrow();
  });

  it.each(SHELL.map((block) => [block.where, block]))('%s (sh) is valid bash', (_, block) => {
    execFileSync('bash', ['-n'], { input: block.code });
  });
});

describe('the TypeScript and JavaScript blocks type-check against the built package', () => {
  let diagnostics: Map<string, string[]>;

  beforeAll(() => {
    expect(existsSync(path.join(ROOT, 'dist/src/index.d.ts')), 'npm run build first').toBe(true);
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    for (const block of TYPED) writeFileSync(fileOf(block), block.code);
    // One program for every block: the declarations are read and checked once.
    const program = ts.createProgram(TYPED.map(fileOf), OPTIONS);
    diagnostics = new Map(TYPED.map((block) => [fileOf(block), []]));
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
      const list = diagnostics.get(diagnostic.file?.fileName ?? '') ?? diagnostics.get(fileOf(TYPED[0]!))!;
      list.push(`line ${line} of the block: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
  }, 120_000);

  it.each(TYPED.map((block) => [block.where, block]))('%s', (_, block) => {
    expect(diagnostics.get(fileOf(block))).toEqual([]);
  });
});

describe('the other blocks say what the code does', () => {
  it('the Python signing function signs as the service does', () => {
    const [block] = ofLang('python');
    const params = { url: 'https://example.com/a b?x=1&y=(2)', format: 'webp', hide_selectors: ".ad,#x!'*", key: 'ce_Ab12Cd34', expires: '1798000000' };
    const program = `${block!.code}\nimport json, sys\nprint(sign(json.loads(sys.argv[1]), sys.argv[2]))\n`;
    const python = execFileSync('python3', ['-c', program, JSON.stringify(params), 'a-signing-secret'], { encoding: 'utf8' }).trim();
    expect(python).toBe(signQuery(Object.entries(params), 'a-signing-secret'));
  });

  it('the webhook request shows the headers a delivery carries', () => {
    const [block] = ofLang('http');
    const shown = [...block!.code.matchAll(/^([\w-]+): (\S+)/gm)].map(([, name, value]): [string, string] => [name!.toLowerCase(), value!]);
    const sent = Object.entries(webhookHeaders({ id: 'nY4', timestamp: 1_798_000_000, body: '{}' }, `whsec_${Buffer.alloc(24).toString('base64')}`));
    for (const [name, value] of sent) expect(shown.find(([shownName]) => shownName === name.toLowerCase())?.[1].slice(0, 3), name).toBe(value.slice(0, 3));
    expect(shown.map(([name]) => name).filter((name) => !sent.some(([sentName]) => sentName.toLowerCase() === name))).toEqual(['content-type', 'x-capture-id']);
  });

  it('the layout names folders and files that exist', () => {
    const [block] = ofLang('text');
    let parent = '';
    const missing: string[] = [];
    for (const line of block!.code.split('\n')) {
      const [, indent = '', first = ''] = /^(\s*)(\S+(?:, \S+)*)(?:\s{2,}|$)/.exec(line) ?? [];
      if (first === '' || indent.length > 2) continue;
      for (const name of first.split(', ')) {
        const full = indent === '' ? name : parent + name;
        if (indent === '' && name.endsWith('/')) parent = name;
        if (!existsSync(path.join(ROOT, full))) missing.push(full);
      }
    }
    expect(missing).toEqual([]);
  });
});
