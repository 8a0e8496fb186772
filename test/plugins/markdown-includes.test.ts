import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { MAX_MARKDOWN_INCLUDES } from '../../src/core/document/markdown-includes.js';
import { createTestEngine } from '../helpers/engine.js';
import { decode, near } from '../helpers/pixels.js';

/** Several Markdown files in one page, as Gotenberg's Markdown route: {{ toHTML "file.md" }} in index.html. */
let engine: CaptureEngine;
beforeAll(async () => {
  engine = await createTestEngine({ timeoutMs: 15_000 });
});
afterAll(async () => {
  await engine?.close();
});

/** Green when each part holds its file rendered: a heading from one.md twice, a table and a task list from chapters/two.md. */
const INDEX = `<body style="margin:0;height:100vh;background:#ff0000">
  <section id="a">{{ toHTML "one.md" }}</section><section id="b">{{toHTML "chapters/two.md"}}</section><section id="c">{{ toHTML "one.md" }}</section>
  <script>
    const ok = document.querySelector('#a h1')?.textContent === 'One' && document.querySelector('#c h1')?.textContent === 'One'
      && document.querySelectorAll('#b table td').length === 2 && document.querySelector('#b input[type=checkbox]')?.checked === true
      && [...document.querySelectorAll('section')].every((part) => !part.textContent.includes('{{'));
    if (ok) document.body.style.background = '#00ff00';
  </script></body>`;
const FILES = [
  { name: 'index.html', content: INDEX },
  { name: 'one.md', content: '# One\n\nFirst part.' },
  { name: 'chapters/two.md', content: '| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done' },
];

describe('{{ toHTML "file.md" }} in index.html', () => {
  it('replaces each placeholder with its Markdown file rendered', async () => {
    const shot = await engine.capture({ files: FILES, viewport_width: 200, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(100, 50), '#00ff00')).toBe(true);
  });

  it('refuses a placeholder naming a file the document does not have, and more files than allowed, naming files', async () => {
    await expect(engine.capture({ files: [{ name: 'index.html', content: '{{ toHTML "missing.md" }}' }] })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'files' } });
    const many = Array.from({ length: MAX_MARKDOWN_INCLUDES + 1 }, (_, i) => ({ name: `${i}.md`, content: `# ${i}` }));
    const index = { name: 'index.html', content: many.map(({ name }) => `{{ toHTML "${name}" }}`).join('') };
    await expect(engine.capture({ files: [index, ...many] })).rejects.toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'files' } });
  });
});
