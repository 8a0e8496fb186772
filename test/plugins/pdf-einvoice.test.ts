import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { invoiceXml } from '../helpers/invoice-xml.js';

/** pdf_einvoice on real Chromium, Ghostscript and pdf-lib, read back with poppler and qpdf. */
let engine: CaptureEngine;
let scratch: string;

beforeAll(async () => {
  engine = await createTestEngine();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pdf-einvoice-test-'));
});
afterAll(async () => {
  await engine?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const PAGE = '<!doctype html><html lang="de"><head><title>Invoice 42</title></head><body><h1>Invoice RE-2026-0042</h1><p>Total 119.00 EUR</p></body></html>';

const capture = (params: Record<string, unknown>, files: { name: string; content: string }[]): Promise<Buffer> =>
  engine.capture({ files: [{ name: 'index.html', content: PAGE }, ...files], format: 'pdf', ...params }).then((result) => result.data as Buffer);

function tool(name: string, args: string[]): string {
  const result = spawnSync(name, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
  return result.stdout;
}

describe('pdf_einvoice', () => {
  it('makes a Factur-X PDF/A-3b: the XML embedded byte for byte as factur-x.xml, AFRelationship Data, the fx XMP with the profile of the XML', async () => {
    const xml = invoiceXml('urn:cen.eu:en16931:2017');
    const pdf = await capture({ pdf_einvoice: 'factur-x' }, [{ name: 'factur-x.xml', content: xml }]);
    const file = path.join(scratch, 'invoice.pdf');
    writeFileSync(file, pdf);
    expect(tool('pdfdetach', ['-list', file])).toMatch(/1 embedded files\n1: factur-x\.xml/);
    const extracted = path.join(scratch, 'extracted.xml');
    tool('pdfdetach', ['-save', '1', '-o', extracted, file]);
    expect(readFileSync(extracted).equals(Buffer.from(xml))).toBe(true);
    const xmp = tool('pdfinfo', ['-meta', file]);
    expect(xmp).toMatch(/pdfaid:part='3'/);
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    expect(xmp).toContain('<fx:DocumentType>INVOICE</fx:DocumentType>');
    expect(xmp).toContain('<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>');
    const objects = Object.values((JSON.parse(tool('qpdf', ['--json', '--json-key=qpdf', file])) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }>] }).qpdf[1]);
    const spec = objects.find((object) => object.value?.['/Type'] === '/Filespec')?.value;
    expect(spec).toMatchObject({ '/AFRelationship': '/Data', '/F': 'u:factur-x.xml', '/UF': 'u:factur-x.xml' });
    expect(objects.find((object) => object.stream?.dict['/Type'] === '/EmbeddedFile')?.stream?.dict['/Subtype']).toBe('/text/xml');
    const catalog = objects.find((object) => object.value?.['/Type'] === '/Catalog')?.value;
    expect(catalog?.['/AF']).toBeDefined();
    expect(catalog?.['/OutputIntents']).toBeDefined();
    expect(tool('qpdf', ['--check', file])).toContain('No syntax or stream encoding errors');
  });

  it('names a ZUGFeRD XRechnung file as uploaded and reads its level', async () => {
    const pdf = await capture({ pdf_einvoice: 'zugferd' }, [{ name: 'xrechnung.xml', content: invoiceXml('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0') }]);
    const file = path.join(scratch, 'zugferd.pdf');
    writeFileSync(file, pdf);
    expect(tool('pdfdetach', ['-list', file])).toContain('1: xrechnung.xml');
    expect(tool('pdfinfo', ['-meta', file])).toContain('<fx:ConformanceLevel>XRECHNUNG</fx:ConformanceLevel>');
  });

  it('refuses an e-invoice without its XML, with an unknown profile, or that is not a PDF/A-3b', async () => {
    const errorOf = (params: Record<string, unknown>, files: { name: string; content: string }[]) => capture(params, files).then(() => undefined, (error: unknown) => error);
    expect(await errorOf({ pdf_einvoice: 'factur-x' }, [])).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_einvoice' } });
    expect(await errorOf({ pdf_einvoice: 'factur-x' }, [{ name: 'factur-x.xml', content: invoiceXml('urn:example:unknown') }])).toMatchObject({ code: 'INVALID_PARAMETER', details: { param: 'pdf_einvoice' } });
    expect(await errorOf({ pdf_einvoice: 'factur-x', pdf_a: 'PDF/A-2b' }, [])).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_einvoice', 'pdf_a'] } });
    expect(await errorOf({ pdf_einvoice: 'zugferd', pdf_password: 'x' }, [])).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', details: { params: ['pdf_einvoice', 'pdf_password'] } });
  });
});
