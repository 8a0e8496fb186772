import type { PDFDocument } from '@cantoo/pdf-lib';

/** The standard text fields of a PDF's document information that a caller or a PDF/A rewrite sets. */
export type DocumentInfo = Partial<Record<'Title' | 'Author' | 'Subject' | 'Keywords' | 'Creator', string>>;

/** Sets each field given (pdf-lib writes PDFDocEncoding-safe text as it is, any other as UTF-16BE). */
export function setDocumentInfo(document: PDFDocument, info: DocumentInfo): void {
  if (info.Title !== undefined) document.setTitle(info.Title);
  if (info.Author !== undefined) document.setAuthor(info.Author);
  if (info.Subject !== undefined) document.setSubject(info.Subject);
  // As given: pdf-lib would join a list with spaces, and readers show the field as one string.
  if (info.Keywords !== undefined) document.setKeywords([info.Keywords]);
  if (info.Creator !== undefined) document.setCreator(info.Creator);
}
