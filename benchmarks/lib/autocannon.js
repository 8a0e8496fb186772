// autocannon runs that the cleanup can stop: run(options, { stopAfterMs }) resolves with its result.

let running; // the autocannon instance under way

export async function runCannon(options, { stopAfterMs } = {}) {
  const { default: autocannon } = await import('autocannon');
  return new Promise((resolve, reject) => {
    let timer;
    running = autocannon(options, (error, result) => {
      clearTimeout(timer);
      running = undefined;
      if (error) reject(error);
      else resolve(result);
    });
    if (stopAfterMs) timer = setTimeout(() => running?.stop(), stopAfterMs);
  });
}

/** Stops the run under way, if any. */
export function stopCannon() {
  try {
    running?.stop();
  } catch {
    // already stopped
  }
}
