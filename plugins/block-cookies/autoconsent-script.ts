import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { filterCompactRules, type CompactCMPRuleset, type Config, type IndexedCMPRuleset } from '@duckduckgo/autoconsent';
import { STATE_KEY } from './autoconsent-state.js';

const require = createRequire(import.meta.url);

/**
 * Opt out, never opt in; no prehiding (a prehidden banner would look absent to the settle check
 * while it might come back); main world, so rule snippets run in place instead of round trips.
 */
const AUTOCONSENT_CONFIG: Partial<Config> = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: false,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // Its text heuristics read the whole page's innerText on every retry; our fallback has its own.
  enableHeuristicDetection: false,
  heuristicMode: 'off',
  enablePopupMutationObserver: false,
  detectRetries: 20,
  isMainWorld: true,
  visualTest: false,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
};

interface Assets {
  /** The content script for automation tools: it talks through `window.autoconsentSendMessage`. */
  contentScript: string;
  /** The bundled rules in their compact form (opt-out only, which is all we do). */
  rules: IndexedCMPRuleset;
  /** Rules that run in subframes, whatever their URL (autoconsent checks URL patterns itself). */
  frameRules: string;
}

let assets: Assets | undefined;

/** Read on first use: block_cookies may never be asked for. */
function loadAssets(): Assets {
  if (assets) return assets;
  // The package exports only its bundles and rule files; the content script sits beside them.
  const bundleDir = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  const rules = require('@duckduckgo/autoconsent/rules/compact-rules.json') as IndexedCMPRuleset;
  const { v, s, r, index } = rules;
  const frameRules: CompactCMPRuleset = { v, s: s.slice(0, index.frameStringEnd), r: r.slice(index.frameRuleRange[0], index.frameRuleRange[1]) };
  assets = {
    contentScript: readFileSync(path.join(bundleDir, 'autoconsent.playwright.js'), 'utf8'),
    rules,
    frameRules: JSON.stringify(frameRules),
  };
  return assets;
}

/**
 * The init script for one capture: autoconsent's content script, preceded by a stand-in for the
 * message channel it expects. The stand-in answers `init` in place with the config and rules
 * (no round trip to Node before detection can start) and records the messages that matter in
 * `window[STATE_KEY]`, which the settle stage reads. No binding is exposed: exposing one costs
 * several protocol round trips on every capture.
 */
export function autoconsentInitScript(targetUrl: string): string {
  const { contentScript, rules, frameRules } = loadAssets();
  // The top frame gets the generic rules and those written for the target's site.
  const topRules = JSON.stringify(filterCompactRules(rules, { url: targetUrl, mainFrame: true }));
  return `(() => {
  if (window.${STATE_KEY}) return;
  const top = window.top === window;
  const state = { top, firstAttemptAt: 0, detectedAt: 0, popupAt: 0, finishedAt: 0, cmp: '', optedOut: false };
  Object.defineProperty(window, '${STATE_KEY}', { value: state });
  const config = ${JSON.stringify(AUTOCONSENT_CONFIG)};
  const rules = { autoconsent: [], compact: top ? ${topRules} : ${frameRules} };
  window.autoconsentSendMessage = async (message) => {
    const now = Date.now();
    switch (message && message.type) {
      case 'init':
        queueMicrotask(() => window.autoconsentReceiveMessage && window.autoconsentReceiveMessage({ type: 'initResp', config, rules }));
        break;
      case 'report':
        if (message.state && message.state.findCmpAttempts >= 1 && !state.firstAttemptAt) state.firstAttemptAt = now;
        break;
      case 'cmpDetected':
        state.detectedAt = state.detectedAt || now;
        state.cmp = state.cmp || String(message.cmp);
        break;
      case 'popupFound':
        state.detectedAt = state.detectedAt || now;
        state.popupAt = now;
        state.finishedAt = 0;
        state.cmp = String(message.cmp);
        break;
      case 'optOutResult':
        state.finishedAt = now;
        state.optedOut = message.result === true;
        break;
      case 'autoconsentDone':
        state.finishedAt = now;
        state.optedOut = true;
        break;
    }
  };
${contentScript}
})();`;
}
