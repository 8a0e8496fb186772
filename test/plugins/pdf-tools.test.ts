import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { inTempDir, runTool } from '../../plugins/pdf-finish/run-tool.js';
import { findTool } from '../../plugins/pdf-finish/find-tools.js';

/** The bounds around every PDF tool run, on the real Ghostscript: killed on abort and on time, nothing left behind. */
const parent = mkdtempSync(path.join(os.tmpdir(), 'pdf-tools-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Processes whose command line holds `marker`, read from /proc. */
function running(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Ghostscript looping for ever, tagged with a marker to find it by. */
const looping = async (dir: string, marker: string) => ({
  step: 'pdf_a',
  binary: await findTool('gs', undefined, 'CAPTURE_GHOSTSCRIPT_PATH'),
  args: ['-q', '-dNODISPLAY', '-dBATCH', '-dNOPAUSE', `-sMARKER=${marker}`, '-c', '{ } loop'],
  cwd: dir,
  output: path.join(dir, 'never.pdf'),
});

describe('runTool', () => {
  it('kills the tool when the capture is aborted, and removes its temp dir', async () => {
    const marker = randomUUID();
    const controller = new AbortController();
    let seen: number[] = [];
    let workDir = '';
    const run = inTempDir(parent, async (dir) => {
      workDir = dir;
      return runTool({ ...(await looping(dir, marker)), signal: controller.signal, timeoutMs: 60_000 });
    });
    while (seen.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = running(marker);
    }
    controller.abort(new Error('client went away'));
    await expect(run).rejects.toThrow('client went away');
    expect(running(marker)).toEqual([]);
    expect(existsSync(workDir)).toBe(false);
  });

  it('kills the tool when its time is up, with CAPTURE_FAILED naming the step', async () => {
    const marker = randomUUID();
    const run = inTempDir(parent, async (dir) => runTool({ ...(await looping(dir, marker)), signal: new AbortController().signal, timeoutMs: 300 }));
    await expect(run).rejects.toMatchObject({ code: 'CAPTURE_FAILED', message: expect.stringContaining('pdf_a: gs ran out of time') as unknown, details: { reason: 'pdf_tools' } });
    expect(running(marker)).toEqual([]);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('refuses a configured path that is not an executable, as an operator error', async () => {
    await expect(findTool('qpdf', path.join(parent, 'nothing'), 'CAPTURE_QPDF_PATH')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
