import type { MultiBar, Options, Params } from 'cli-progress';
import type { CaptureProgress } from '../core/progress.js';

/** What `shot` shows of its captures while they run. */
export interface ShotProgress {
  /** Follows shot `index` (from 0) of `count`: the listener to hand the capture. */
  follow(index: number, count: number, label: string): (progress: CaptureProgress) => void;
  /** Clears what was drawn for the shot, before its result is printed. */
  clear(): void;
}

const SILENT: ShotProgress = { follow: () => () => undefined, clear: () => undefined };

interface ShotLine {
  label: string;
  phase: string;
  started: number;
  frames?: { done: number; total: number };
}

/**
 * Progress on a terminal (issue 50: a 10 s video was 11 silent seconds): each shot's phase and
 * seconds, a bar of its frames for a video, and a bar of the shots for `--multi`; drawn on
 * `stream` (stderr) by cli-progress, which also redraws the seconds as they pass. Nothing at all,
 * not even the package loaded, when the stream is not a terminal or with `--quiet`.
 */
export async function shotProgress(stream: NodeJS.WriteStream, quiet: boolean): Promise<ShotProgress> {
  if (quiet || !stream.isTTY) return SILENT;
  // A CommonJS package whose `Format` Node's static analysis does not see as a named export.
  const { default: progressBars } = await import('cli-progress');
  const { Format, MultiBar, Presets } = progressBars;
  const bar = (options: Options, params: Params): string => `[${Format.BarFormat(params.progress, options)}]`;
  const shotLine = (options: Options, params: Params, line: ShotLine): string => {
    const seconds = ((Date.now() - line.started) / 1000).toFixed(1);
    const frames = line.frames ? ` ${bar(options, params)} ${line.frames.done}/${line.frames.total} frames` : '';
    return `${line.label}: ${line.phase}, ${seconds} s${frames}`;
  };
  const shotsLine = (options: Options, params: Params): string => `${bar(options, params)} ${params.value}/${params.total} shots`;
  let bars: MultiBar | undefined;
  return {
    follow(index, count, label) {
      bars = new MultiBar({ stream, fps: 10, clearOnComplete: true, hideCursor: true, barsize: 30 }, Presets.shades_classic);
      if (count > 1) bars.create(count, index, {}, { format: shotsLine });
      const line: ShotLine = { label, phase: 'starting', started: Date.now() };
      const current = bars.create(1, 0, line, { format: (options, params, payload: ShotLine) => shotLine(options, params, payload) });
      return (progress) => {
        line.phase = progress.phase;
        if (progress.frames) {
          line.frames = progress.frames;
          current.setTotal(progress.frames.total);
          current.update(progress.frames.done, line);
        } else current.update(line);
      };
    },
    clear() {
      bars?.stop();
      bars = undefined;
    },
  };
}
