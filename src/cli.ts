#!/usr/bin/env node
import { EXIT, exitCodeOf, failureText } from './cli/exit-codes.js';

/**
 * Each command loads only its own modules: `shot` is a cold start every time it runs, and has no
 * use for the HTTP service, Redis or BullMQ that `serve` and `worker` load.
 */
const COMMANDS: Record<string, () => Promise<(args: string[]) => Promise<void> | void>> = {
  serve: async () => (await import('./cli/serve.js')).serve,
  shot: async () => (await import('./cli/shot.js')).shot,
  keys: async () => (await import('./cli/keys.js')).keys,
  worker: async () => (await import('./cli/worker.js')).worker,
  link: async () => (await import('./cli/link.js')).link,
  mcp: async () => (await import('./cli/mcp.js')).mcp,
  html: async () => (await import('./cli/scraper-commands.js')).scraperCommand('html'),
  accessibility: async () => (await import('./cli/scraper-commands.js')).scraperCommand('accessibility'),
  javascript: async () => (await import('./cli/scraper-commands.js')).scraperCommand('javascript'),
  pdf: async () => (await import('./cli/scraper-commands.js')).scraperCommand('pdf'),
  har: async () => (await import('./cli/scraper-commands.js')).scraperCommand('har'),
  video: async () => (await import('./cli/storyboard.js')).video,
  auth: async () => (await import('./cli/auth.js')).auth,
  '--version': async () => (await import('./cli/version.js')).version,
};

const USAGE = `capture-engine: screenshots and videos of web pages

  capture-engine serve [--port 3000] [--host 0.0.0.0] [--adapter node|express|fastify|koa] [--storage-dir DIR]
                       [--allow-private-networks] [--worker]
  capture-engine worker [--concurrency 4] [--storage-dir DIR] [--allow-private-networks]
  capture-engine keys create --tier PRO [--name NAME] [--signed-only] | list | revoke PREFIX | set-tier PREFIX TIER
                       | rotate-signing PREFIX | generate   (a random key for CAPTURE_API_KEYS, no store needed)
  capture-engine link <url> --key PREFIX --signing-secret SECRET [--expires-in SECONDS] [--base-url URL]
                       [--format webp --viewport-width 1200 ...]   (or --api-key KEY for a CAPTURE_API_KEYS key)
  capture-engine shot <url> -o <file> [--<parameter> <value> ...]   (every /v1/capture parameter: shot --help)
                       [--format pdf] [--width 1920] [--height 1080] [--full-page] [--device 'iPhone 15'] ...
  capture-engine mcp [--storage-dir DIR] [--allow-private-networks]   (an MCP server on stdio, for desktop agents)
  capture-engine shot --multi <shots.yml>    (a YAML or JSON list of {output: file, ...parameters}, one engine)
  capture-engine html|accessibility|javascript|pdf|har <url> ...   (shot-scraper's commands; <command> --help)
  capture-engine video <storyboard.yml>   (shot-scraper's storyboard, recorded)
  capture-engine auth <url> <auth.json>   (sign in in a browser window, save its cookies for -a auth.json)

Environment: PORT, HOST, CAPTURE_ADAPTER, CAPTURE_API_KEYS="<key>:<TIER>,...", CAPTURE_ALLOW_PRIVATE_NETWORKS=true,
CAPTURE_CHROMIUM_PATH, CAPTURE_FFMPEG_PATH, CAPTURE_STORAGE_DIR, CAPTURE_REDIS_URL, CAPTURE_KEYS_FILE,
CAPTURE_METRICS_PORT, CAPTURE_LOG_LEVEL, CAPTURE_TIMEOUT_MS, CAPTURE_CONCURRENCY; render links: CAPTURE_LINK_ID_SECRET,
CAPTURE_LINK_KEY, CAPTURE_SIGNING_SECRET, CAPTURE_LINK_BASE_URL; asynchronous captures:
CAPTURE_QUEUE_NAME, CAPTURE_WEBHOOK_SECRET, CAPTURE_JOB_ATTEMPTS, CAPTURE_JOB_BACKOFF_MS, CAPTURE_JOB_LOCK_MS, CAPTURE_WEBHOOK_BACKOFF_MS.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const load = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (load) return (await load())(rest);
  process.stdout.write(`${USAGE}\n`);
  if (command !== undefined && command !== 'help' && command !== '--help') process.exitCode = EXIT.usage;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${failureText(error)}\n`);
  process.exit(exitCodeOf(error));
});
