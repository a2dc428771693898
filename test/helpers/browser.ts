// The browser tests' one way to start Chromium: offline-friendly flags, the system's binary, a HOME of its own (it
// writes crash-report settings and a dconf cache there, never the user's), and the skip reason when it is missing
// (CI installs it before the tests).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export const CHROMIUM = '/usr/bin/chromium';

/** False when Chromium is there; otherwise why the browser test is skipped and how to get it. */
export const chromiumSkip: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install it (apt-get install -y chromium) to run the browser test`;

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

/** Chromium through playwright-core, with no network side channels (no updates, sync, QUIC). */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const home = tempDir('forklab-chromium-home-');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') };
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, env });
}
