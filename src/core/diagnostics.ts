/** How one wait for the page ended: met, or ran out (and, with `best_effort`, was skipped). */
export interface WaitOutcome {
  /** The wait's parameter (`wait_until`, `settle`, `wait_for_selector`, ...). */
  name: string;
  outcome: 'met' | 'ran_out';
  /** Milliseconds it took. */
  ms: number;
}

/** What `diagnostics=true` reports about a capture's page. */
export interface CaptureDiagnostics {
  /** The main document: where it ended up, its status, and its load times in ms from the navigation's start. */
  document: {
    url: string | null;
    status: number | null;
    timing: { response_start?: number; dom_content_loaded?: number; load?: number };
  };
  /** The hops of the main document before `document.url`, in order. */
  redirects: { url: string; status: number }[];
  /** Console messages and uncaught errors, in order (at most `DIAGNOSTICS_LIMIT`, each text cut). */
  console: { type: string; text: string }[];
  requests: {
    total: number;
    /** Subresources that could not be loaded (at most `DIAGNOSTICS_LIMIT`). */
    failed: { url: string; error: string }[];
    /** Requests refused on purpose: `block_ads`, `block_resources`, the egress guard (at most `DIAGNOSTICS_LIMIT`). */
    blocked: { url: string; reason: string }[];
    /** Every request's number by outcome, however many were listed. */
    counts: { finished: number; failed: number; blocked: number };
  };
  waits: WaitOutcome[];
  /** A bot challenge the page was (with `on_bot_challenge=capture`): whose, and the markers that matched. */
  bot_challenge?: { vendor: string; matched: string[] };
}

/** The most entries a list of the diagnostics keeps. */
export const DIAGNOSTICS_LIMIT = 100;

/**
 * A file made beside the output (a HAR of the page load), stored next to it when the output is
 * stored, under `<date>/<id>-<name>.<extension>`.
 */
export interface Sidecar {
  name: string;
  extension: string;
  contentType: string;
  data: Buffer;
}
