import type { Logger } from '../core/telemetry/logger.js';
import type { BrowserGenerations } from './generations.js';
import { killProcess, sampleTree } from './process-tree.js';

export interface WatchdogOptions {
  /** A renderer holding more resident memory is killed, in a capture or not (its capture fails at once). */
  rendererMemoryBytes: number;
  /** A browser whose processes together hold more is recycled: it takes no new captures and closes once its own end. */
  browserMemoryBytes: number;
  /** How often the browsers' processes are read. */
  intervalMs: number;
}

/** Renderers killed so far, by why. */
export interface KilledRenderers {
  /** Busy while no capture ran: what a capture left spinning. */
  busy: number;
  /** Over `rendererMemoryBytes`. */
  memory: number;
}

/**
 * A renderer using more than this share of a core through a whole interval in which no capture
 * ran is doing work nobody asked for. Opening a warm context costs a new renderer about a tenth.
 */
const IDLE_BUSY_SHARE = 0.5;

/**
 * Reads every local browser's processes from /proc at an interval. A capture's context is closed
 * by force when it ends (pool.ts), so what this finds is what slipped past that: a renderer still
 * busy while the pool is idle is killed, as is a renderer past the memory ceiling; a browser past
 * its own ceiling is recycled. What it killed shows in the pool's stats and the metrics.
 */
export class RendererWatchdog {
  readonly killed: KilledRenderers = { busy: 0, memory: 0 };
  /** Resident memory of all browsers' processes at the last reading. */
  memoryBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastTick = 0;
  /** CPU time of each renderer at the last reading. */
  private lastCpu = new Map<number, number>();

  /** `idleSince`: since when no capture has held a context or opened one (undefined while one does). */
  constructor(
    private readonly generations: BrowserGenerations,
    private readonly idleSince: () => number | undefined,
    private readonly options: WatchdogOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.lastTick = Date.now();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = Date.now();
    const idle = this.idleSince();
    const idleThroughout = idle !== undefined && idle <= this.lastTick;
    const elapsed = now - this.lastTick;
    this.lastTick = now;
    const cpu = new Map<number, number>();
    let memory = 0;
    for (const generation of this.generations.live) {
      if (generation.pid === undefined) continue;
      const samples = sampleTree(generation.pid);
      const total = samples.reduce((sum, sample) => sum + sample.rssBytes, 0);
      memory += total;
      if (total > this.options.browserMemoryBytes && !generation.overMemory) {
        generation.overMemory = true;
        this.log.warn({ memoryMb: Math.round(total / 2 ** 20) }, 'the browser holds more memory than allowed; it is recycled once its captures end');
      }
      for (const { pid, kind, cpuMs, rssBytes } of samples) {
        if (kind !== 'renderer') continue;
        cpu.set(pid, cpuMs);
        const before = this.lastCpu.get(pid);
        if (rssBytes > this.options.rendererMemoryBytes) this.kill(pid, 'memory', { memoryMb: Math.round(rssBytes / 2 ** 20) });
        else if (idleThroughout && before !== undefined && cpuMs - before > IDLE_BUSY_SHARE * elapsed) this.kill(pid, 'busy', { cpuMs: cpuMs - before, overMs: elapsed });
      }
    }
    this.lastCpu = cpu;
    this.memoryBytes = memory;
  }

  private kill(pid: number, reason: keyof KilledRenderers, details: Record<string, number>): void {
    killProcess(pid);
    this.killed[reason]++;
    this.log.warn({ pid, reason, ...details }, 'killed a renderer');
  }
}
