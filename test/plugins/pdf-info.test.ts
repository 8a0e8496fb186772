import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from '@cantoo/pdf-lib';
import type { CaptureEngine } from '../../src/index.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { MAX_PDF_METADATA_FIELDS, MAX_PDF_METADATA_VALUE } from '../../src/core/schema/pdf-params.js';
import { createTestEngine } from '../helpers/engine.js';

/** The PDF's whole document information (Gotenberg's `metadata`), read back with poppler's pdfinfo and pdf-lib. */
let engine: CaptureEngine;
let dir: string;
beforeAll(async () => {
  engine = await createTestEngine();
  dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-info-'));
});
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** pdfinfo's fields of a PDF, by name; `-custom` lists the custom fields of the information dictionary too. */
function pdfinfo(data: Buffer, ...options: string[]): Record<string, string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, data);
  const text = execFileSync('pdfinfo', ['-isodates', '-enc', 'UTF-8', ...options, file], { encoding: 'utf8' });
  return Object.fromEntries(text.split('\n').filter((line) => line.includes(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
}

const html = '<title>Report</title><body><p>Hello</p></body>';

describe('PDF document information', () => {
  it('sets Creator, Producer, CreationDate, ModDate and Trapped beside Title and Author', async () => {
    const result = await engine.capture({
      html,
      format: 'pdf',
      pdf_author: 'Ada',
      pdf_creator: 'Invoices 4.2',
      pdf_producer: 'capture-engine test',
      pdf_creation_date: '2026-01-31T09:30:00+01:00',
      pdf_modification_date: '2026-02-01',
      pdf_trapped: 'True',
    });
    const data = result.data as Buffer;
    expect(pdfinfo(data)).toMatchObject({ Title: 'Report', Author: 'Ada', Creator: 'Invoices 4.2', Producer: 'capture-engine test', CreationDate: '2026-01-31T08:30:00Z', ModDate: '2026-02-01T00:00:00Z' });
    const document = await PDFDocument.load(data, { updateMetadata: false });
    expect([document.getCreationDate()?.toISOString(), document.getModificationDate()?.toISOString()]).toEqual(['2026-01-31T08:30:00.000Z', '2026-02-01T00:00:00.000Z']);
    expect(data.toString('latin1')).toMatch(/\/Trapped \/True/);
  });

  it('writes custom fields (pdf_metadata), in any script, beside the standard ones', async () => {
    const pdf_metadata = { Department: 'Finance (EU)', Reference: 'Référence №42 — 請求書', 'Doc.Id-2': 'x'.repeat(MAX_PDF_METADATA_VALUE) };
    const result = await engine.capture({ html, format: 'pdf', pdf_author: 'Ada', pdf_metadata: JSON.stringify(pdf_metadata) });
    expect(pdfinfo(result.data as Buffer, '-custom')).toMatchObject({ Author: 'Ada', Title: 'Report', ...pdf_metadata });
  });

  it(`refuses more than ${MAX_PDF_METADATA_FIELDS} fields, a longer value, a name no reader shows as it is, a standard field, and a PDF/A`, () => {
    const url = 'https://example.com/';
    const many = Object.fromEntries(Array.from({ length: MAX_PDF_METADATA_FIELDS + 1 }, (_, i) => [`F${i}`, 'v']));
    for (const pdf_metadata of [many, { Long: 'x'.repeat(MAX_PDF_METADATA_VALUE + 1) }, { 'Two words': 'v' }, { '1st': 'v' }, { 'A#20': 'v' }, { Empty: '' }, { N: 1 }, '{not json', { Title: 'T' }, { Trapped: 'True' }]) {
      expect(() => parseCaptureParams({ url, format: 'pdf', pdf_metadata }), JSON.stringify(pdf_metadata).slice(0, 60)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: expect.stringMatching(/^pdf_metadata/) }) }));
    }
    expect(() => parseCaptureParams({ url, format: 'pdf', pdf_metadata: { A: 'b' }, pdf_a: 'PDF/A-2b' })).toThrow(expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_metadata', 'pdf_a'] } }));
    expect(() => parseCaptureParams({ url, pdf_metadata: { A: 'b' } })).toThrow(expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_metadata', 'format'] } }));
    expect(parseCaptureParams({ url, format: 'pdf', pdf_metadata: '{"A":"b"}' }).pdf_metadata).toEqual({ A: 'b' });
  });

  it("keeps Chromium's own fields when none is asked", async () => {
    const info = pdfinfo((await engine.capture({ html, format: 'pdf' })).data as Buffer);
    expect(info.Creator).toMatch(/Chrom/);
    expect(info.Producer).toMatch(/Skia/);
  });

  it('refuses a day that does not exist, a time zone it cannot read, a Trapped it does not know, and every field on an image', () => {
    const url = 'https://example.com/';
    for (const [param, value] of [['pdf_creation_date', '2026-02-30'], ['pdf_modification_date', '2026-01-31T25:00'], ['pdf_creation_date', '31/01/2026'], ['pdf_trapped', 'yes'], ['pdf_creator', 'x'.repeat(1025)]]) {
      expect(() => parseCaptureParams({ url, format: 'pdf', [param as string]: value }), `${param}=${value}`).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param }) }));
    }
    expect(() => parseCaptureParams({ url, pdf_producer: 'x' })).toThrow(expect.objectContaining({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_producer', 'format'] } }));
  });
});
