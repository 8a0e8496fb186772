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

export interface QpdfJob {
  qpdf: string;
  dir: string;
  signal: AbortSignal;
  timeoutMs: number;
}

/**
 * The PDF encrypted by qpdf with AES-256 (R6). The passwords go to qpdf in an argument file inside
 * the run's private temp dir, never on its command line (which every local user can read).
 * Without an owner password the user password is the owner's too: an empty one would let anyone
 * open the file with every right, which qpdf rightly refuses.
 */
export async function protectPdf(input: Buffer, protection: Protection, job: QpdfJob): Promise<Buffer> {
  const source = path.join(job.dir, 'plain.pdf');
  const output = path.join(job.dir, 'protected.pdf');
  const argsFile = path.join(job.dir, 'qpdf.args');
  const user = protection.userPassword ?? '';
  const owner = protection.ownerPassword ?? user;
  const rights = protection.permissions === undefined ? undefined : permissionsOf(protection.permissions);
  // One argument a line, as qpdf reads @file.
  const args = [source, '--encrypt', user, owner, '256', ...(rights ? restrictions(rights) : []), '--', output];
  await writeFile(source, input);
  await writeFile(argsFile, args.join('\n') + '\n', { mode: 0o600 });
  // 3: written, with warnings.
  await runTool({ step: 'pdf_password', binary: job.qpdf, args: [`@${argsFile}`], cwd: job.dir, output, signal: job.signal, timeoutMs: job.timeoutMs }, [0, 3]);
  return readFile(output);
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
