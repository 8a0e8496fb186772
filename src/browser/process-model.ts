/**
 * Where Chromium runs its GPU and network services. `isolated`, Chromium's own choice on Linux: a
 * sandboxed process each. `compact`: both inside the browser process, two processes fewer (on the
 * headless shell about 100 MiB of the tree's RSS at rest and 115 MiB at 4 captures at once:
 * benchmarks/results/binaries.md), at the cost of their isolation: WebGL runs in SwiftShader, and a
 * page's shaders and responses are then handled in the process that holds every context.
 */
const COMPACT_SWITCHES = ['--in-process-gpu', '--enable-features=NetworkServiceInProcess2'];

/** The launch switches of `model`, checked: an unknown model, or `compact` for a browser the engine does not launch, is refused by the option's name. */
export function processModelSwitches(model: unknown, remote: boolean): string[] {
  if (model === undefined || model === 'isolated') return [];
  if (model !== 'compact') throw new TypeError(`Option 'browserProcessModel' must be 'isolated' or 'compact', got ${String(model)}`);
  if (remote) throw new TypeError("Option 'browserProcessModel' 'compact' needs a local browser, not 'connectEndpoint'");
  return COMPACT_SWITCHES;
}
