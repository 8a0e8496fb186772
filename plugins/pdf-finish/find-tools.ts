import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { findOnPath, isExecutable } from '../shared/find-executable.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/** Where the PDF tools are, as the engine options or the environment name them. */
export interface PdfToolPaths {
  /** Ghostscript (`gs`): PDF/A. @default option → `CAPTURE_GHOSTSCRIPT_PATH` → `gs` on PATH */
  ghostscriptPath?: string;
  /** qpdf: encryption. @default option → `CAPTURE_QPDF_PATH` → `qpdf` on PATH */
  qpdfPath?: string;
  /** An sRGB ICC profile for the PDF/A output intent. @default option → `CAPTURE_SRGB_PROFILE` → Ghostscript's own `srgb.icc` */
  srgbProfilePath?: string;
}

/** The executable `name`: the explicit path, then the environment variable, then PATH. */
export async function findTool(name: 'gs' | 'qpdf', explicit: string | undefined, envName: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const chosen = explicit ?? env[envName];
  if (chosen) {
    if (!(await isExecutable(chosen))) throw missing(`${name} not found or not executable at ${chosen}`);
    return chosen;
  }
  const onPath = await findOnPath(name, env.PATH ?? '');
  if (onPath) return onPath;
  throw missing(`No ${name} found: set ${envName} or install it (\`npm run setup\`)`);
}

/**
 * An sRGB profile: the explicit one, or the `srgb.icc` Ghostscript installs with itself (Debian
 * puts it under /usr/share/color/icc/ghostscript; builds from source under share/ghostscript/<version>/iccprofiles).
 */
export async function findSrgbProfile(ghostscript: string, explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const chosen = explicit ?? env.CAPTURE_SRGB_PROFILE;
  if (chosen) return chosen;
  const share = path.join(path.dirname(path.dirname(ghostscript)), 'share');
  const versions = await readdir(path.join(share, 'ghostscript')).catch(() => [] as string[]);
  const candidates = [path.join(share, 'color', 'icc', 'ghostscript', 'srgb.icc'), ...versions.map((version) => path.join(share, 'ghostscript', version, 'iccprofiles', 'srgb.icc'))];
  for (const candidate of candidates) if (await readable(candidate)) return candidate;
  throw missing('No sRGB ICC profile found beside Ghostscript: set CAPTURE_SRGB_PROFILE');
}

async function readable(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** A server without its tools is the operator's problem, not the client's: hidden behind INTERNAL_ERROR. */
function missing(message: string): CaptureError {
  return new CaptureError('INTERNAL_ERROR', message, { details: { reason: 'pdf_tools' } });
}
