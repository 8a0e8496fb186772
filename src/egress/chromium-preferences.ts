import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * WebRTC talks UDP straight from the browser, past any proxy: a page can make Chromium send STUN
 * and TURN packets to any address and port, private ones included. Chromium honours
 * "disable_non_proxied_udp" (UDP off, TURN over TCP through the proxy, where the egress guard
 * checks it) as a profile preference in the full browser, where the
 * --force-webrtc-ip-handling-policy switch had no effect in Chromium 156 (tested), and only as that
 * switch in the headless shell, which reads no profile preferences: `chromiumArgs` passes it.
 * Contexts from browser.newContext() inherit the preference from the profile.
 */
const EGRESS_PREFERENCES = {
  webrtc: {
    ip_handling_policy: 'disable_non_proxied_udp',
    multiple_routes_enabled: false,
    nonproxied_udp_enabled: false,
  },
} as const;

/**
 * Writes the egress preferences into a Chromium user data directory before launch (for
 * `chromium.launchPersistentContext(userDataDir, ...)`), keeping any other preferences there.
 */
export async function writeEgressPreferences(userDataDir: string): Promise<void> {
  const profile = join(userDataDir, 'Default');
  const file = join(profile, 'Preferences');
  await mkdir(profile, { recursive: true });
  let existing: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (parsed !== null && typeof parsed === 'object') existing = parsed as Record<string, unknown>;
  } catch {
    // No profile yet (or an unreadable one Chromium would discard anyway).
  }
  const webrtc = typeof existing.webrtc === 'object' && existing.webrtc !== null ? existing.webrtc : {};
  await writeFile(file, JSON.stringify({ ...existing, webrtc: { ...webrtc, ...EGRESS_PREFERENCES.webrtc } }));
}
