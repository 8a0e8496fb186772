import { PHASES, type CapturePlugin, type Phase, type Stage } from './plugin-api.js';
import type { CaptureParams } from './schema/capture-params.js';

/**
 * The stages of every phase in registration order. Plugins are checked once at `use()`: unique
 * names, dependencies registered first. The engine runs the phases; plugins never reorder them.
 */
export class Pipeline {
  private readonly plugins: CapturePlugin[] = [];
  private readonly byPhase = new Map<Phase, Stage[]>(PHASES.map((phase) => [phase, []]));

  use(plugin: CapturePlugin): void {
    if (this.has(plugin.name)) throw new Error(`Plugin '${plugin.name}' is already registered`);
    const missing = (plugin.dependencies ?? []).filter((name) => !this.has(name));
    if (missing.length > 0) {
      throw new Error(`Plugin '${plugin.name}' needs ${missing.map((name) => `'${name}'`).join(', ')} registered first`);
    }
    for (const stage of plugin.stages ?? []) {
      if (!PHASES.includes(stage.phase)) throw new Error(`Stage '${plugin.name}/${stage.name}' names unknown phase '${stage.phase}'`);
      this.byPhase.get(stage.phase)?.push({ ...stage, name: `${plugin.name}/${stage.name}` });
    }
    this.plugins.push(plugin);
  }

  has(name: string): boolean {
    return this.plugins.some((plugin) => plugin.name === name);
  }

  stages(phase: Phase): readonly Stage[] {
    return this.byPhase.get(phase) ?? [];
  }

  /** Whether a capture with `params` runs a stage that leaves state on its browser context (see `Stage.leavesContextState`). */
  leavesContextState(params: CaptureParams): boolean {
    return PHASES.some((phase) =>
      this.stages(phase).some((stage) => {
        if (stage.when && !stage.when(params)) return false;
        const leaves = stage.leavesContextState ?? true;
        return typeof leaves === 'function' ? leaves(params) : leaves;
      }),
    );
  }

  get registered(): readonly CapturePlugin[] {
    return this.plugins;
  }
}
