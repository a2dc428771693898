// The browser tests' one way to start Chromium: offline-friendly flags, the system's binary, and the skip reason when
// it is missing (CI installs it before the tests).
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** False when Chromium is there; otherwise why the browser test is skipped and how to get it. */
export const chromiumSkip: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install it (apt-get install -y chromium) to run the browser test`;

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

/** Chromium through playwright-core, with no network side channels (no updates, sync, QUIC). */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
