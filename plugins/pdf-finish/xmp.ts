import type { PDFContext, PDFRawStream } from '@cantoo/pdf-lib';

/** Text escaped for XML content and attribute values. */
export const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An XMP packet (ISO 16684-1) around the given rdf:Description elements. */
export function xmpPacket(descriptions: string[]): string {
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    ...descriptions,
    '</rdf:RDF></x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/** The XMP metadata stream of `xmp`, in UTF-8 (pdf-lib would write a string's characters as single bytes). */
export function xmpStream(context: PDFContext, xmp: string): PDFRawStream {
  return context.stream(new Uint8Array(Buffer.from(xmp, 'utf8')), { Type: 'Metadata', Subtype: 'XML' });
}
