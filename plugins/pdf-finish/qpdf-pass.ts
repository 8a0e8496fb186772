import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.js';
import { permissionsOf, type PdfPermission } from '../../src/core/schema/pdf-finish-params.js';

export interface Protection {
  userPassword?: string;
  ownerPassword?: string;
  /** Granted rights; all when undefined. */
  permissions?: string;
}

/** What qpdf does to the file in its one pass; each field is the parameter's value. */
export interface QpdfPass {
  rotate?: number;
  /** The pages turned, `1-3, 5`; all when undefined. */
  rotatePages?: string;
  linearize: boolean;
  /**
   * pdf_optimize: every stream deflated again at the highest level, and with `objects` the objects
   * packed into object streams (not in a PDF/A-1, which forbids them).
   */
  pack: 'objects' | 'streams' | false;
  /** pdf_flatten: annotations and form fields drawn into the pages (their appearances made first). */
  flatten: boolean;
  protection?: Protection;
}

export interface QpdfJob {
  qpdf: string;
  dir: string;
  signal: AbortSignal;
  timeoutMs: number;
}

/**
 * The PDF rewritten by qpdf in one pass: pages turned, forms and annotations flattened, linearized, and last encrypted with AES-256 (R6). The arguments go
 * to qpdf in a file inside the run's private temp dir, so the passwords are never on its command
 * line (which every local user can read).
 */
export async function qpdfPass(input: Buffer, pass: QpdfPass, job: QpdfJob): Promise<Buffer> {
  const source = path.join(job.dir, 'plain.pdf');
  const output = path.join(job.dir, 'finished.pdf');
  const argsFile = path.join(job.dir, 'qpdf.args');
  const pages = pass.rotatePages?.replace(/\s+/g, '');
  const args = [
    source,
    ...(pass.rotate === undefined ? [] : [`--rotate=+${pass.rotate}${pages ? `:${pages}` : ''}`]),
    ...(pass.flatten ? ['--generate-appearances', '--flatten-annotations=all'] : []),
    ...(pass.linearize ? ['--linearize'] : []),
    ...(pass.pack === 'objects' ? ['--object-streams=generate'] : []),
    ...(pass.pack ? ['--recompress-flate', '--compression-level=9'] : []),
    ...(pass.protection ? encryption(pass.protection) : []),
    output,
  ];
  await writeFile(source, input);
  // One argument a line, as qpdf reads @file.
  await writeFile(argsFile, args.join('\n') + '\n', { mode: 0o600 });
  // 3: written, with warnings.
  await runTool({ step: stepOf(pass), binary: job.qpdf, args: [`@${argsFile}`], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
  return readFile(output);
}

/** The parameters the pass does, for error messages. */
function stepOf(pass: QpdfPass): string {
  const steps = [pass.rotate !== undefined && 'pdf_rotate', pass.linearize && 'pdf_linearize', pass.pack && 'pdf_optimize', pass.flatten && 'pdf_flatten', pass.protection && 'pdf_password'];
  return steps.filter(Boolean).join(', ');
}

/**
 * Without an owner password the user password is the owner's too: an empty one would let anyone
 * open the file with every right, which qpdf rightly refuses.
 */
function encryption(protection: Protection): string[] {
  const user = protection.userPassword ?? '';
  const owner = protection.ownerPassword ?? user;
  const rights = protection.permissions === undefined ? undefined : permissionsOf(protection.permissions);
  return ['--encrypt', user, owner, '256', ...(rights ? restrictions(rights) : []), '--'];
}

/** qpdf's 256-bit restriction flags for the granted rights: what is not granted is refused. */
function restrictions(granted: PdfPermission[]): string[] {
  const has = (right: PdfPermission): boolean => granted.includes(right);
  const yn = (on: boolean): string => (on ? 'y' : 'n');
  return [
    `--print=${has('print_high') ? 'full' : has('print') ? 'low' : 'none'}`,
    `--modify-other=${yn(has('modify'))}`,
    `--extract=${yn(has('copy') || has('extract'))}`,
    `--annotate=${yn(has('annotate'))}`,
    `--form=${yn(has('fill_forms'))}`,
    `--assemble=${yn(has('assemble'))}`,
  ];
}
