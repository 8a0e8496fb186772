// The library's cold path, timed from inside: `node library-shot.mjs <dist entry> <url> <out>`.
// Prints one JSON line of milliseconds since the process started: the import of the package,
// createCaptureEngine() (egress guard, browser launch, warm contexts), the first capture (with the
// engine's own phase timings) and close().
import { writeFile } from 'node:fs/promises';
const [entry, url, out] = process.argv.slice(2);
const marks = { start: performance.now() };
const { createCaptureEngine, silentLogger } = await import(entry);
marks.imported = performance.now();
const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger });
marks.created = performance.now();
const shot = await engine.capture({ url, viewport_width: 1280, viewport_height: 720 });
marks.captured = performance.now();
await writeFile(out, shot.data);
await engine.close();
marks.closed = performance.now();
process.stdout.write(`${JSON.stringify({ marks, phases: shot.timings })}\n`);
