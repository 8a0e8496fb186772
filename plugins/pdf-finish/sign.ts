import { readFile } from 'node:fs/promises';
import { CaptureError } from '../../src/core/errors/catalogue.js';

export interface SigningKey {
  p12: Buffer;
  passphrase: string;
}

/**
 * The PKCS#12 the operator configured (`CAPTURE_PDF_SIGN_P12`, its passphrase in
 * `CAPTURE_PDF_SIGN_PASSPHRASE`); undefined when there is none. The environment only: a key is
 * the operator's, never a request's.
 */
export async function signingKeyOf(env: NodeJS.ProcessEnv = process.env): Promise<SigningKey | undefined> {
  const file = env.CAPTURE_PDF_SIGN_P12;
  if (!file) return undefined;
  const p12 = await readFile(file).catch(() => {
    // The operator's problem, not the client's: hidden behind INTERNAL_ERROR.
    throw new CaptureError('INTERNAL_ERROR', 'pdf_sign: the PKCS#12 at CAPTURE_PDF_SIGN_P12 cannot be read', { details: { reason: 'pdf_sign_key' } });
  });
  return { p12, passphrase: env.CAPTURE_PDF_SIGN_PASSPHRASE ?? '' };
}

/**
 * The PDF signed with the operator's key: an invisible signature field whose detached CMS
 * (`adbe.pkcs7.detached`, SHA-256, with the signing time) covers the whole file but the signature
 * itself, by @signpdf with its pdf-lib placeholder. Not PAdES baseline: no ESS signing-certificate
 * attribute, no timestamp. The placeholder is made with the upstream pdf-lib, which @signpdf is
 * written for; the rest of pdf-finish uses its maintained fork.
 */
export async function signPdf(pdf: Buffer, key: SigningKey | undefined): Promise<Buffer> {
  if (!key) throw new CaptureError('INVALID_PARAMETER', 'pdf_sign: this service has no signing key configured', { details: { param: 'pdf_sign' } });
  const [{ PDFDocument }, { pdflibAddPlaceholder }, { P12Signer }, { SignPdf }] = await Promise.all([
    import('pdf-lib'),
    import('@signpdf/placeholder-pdf-lib'),
    import('@signpdf/signer-p12'),
    import('@signpdf/signpdf'),
  ]);
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  pdflibAddPlaceholder({ pdfDoc: document, reason: 'Issued', contactInfo: '', name: 'capture-engine', location: '' });
  const placed = Buffer.from(await document.save({ useObjectStreams: false }));
  try {
    return await new SignPdf().sign(placed, new P12Signer(key.p12, { passphrase: key.passphrase }));
  } catch (error) {
    throw new CaptureError('INTERNAL_ERROR', `pdf_sign: the configured PKCS#12 could not sign (${(error as Error).message})`, { details: { reason: 'pdf_sign_key' } });
  }
}
