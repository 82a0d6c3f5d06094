// Headless Debian chromium (.ci/apt-packages) driven by playwright-core, for the trace page tests.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { missing } from './needs.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A browser test's `skip` option: false, or why it cannot run here (throws under TRACEHOOK_TEST_NO_SKIP=1). */
export const noBrowser = existsSync(CHROMIUM) ? false : missing(`no chromium at ${CHROMIUM}: apt-get install chromium (see .ci/apt-packages)`);

/** A browser page that fails the test on any page error or console error. Closed when the test ends. */
export async function openBrowser(t, viewport = { width: 1500, height: 820 }) {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium (see .ci/apt-packages)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport });
  // Generous: the machine running the suite may be busy; nothing here asserts speed.
  page.setDefaultTimeout(60_000);
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  // A failed request the page made (a missing favicon) is an error too, logged or not.
  page.on('response', (res) => res.status() >= 400 && errors.push(`HTTP ${res.status()} for ${res.url()}`));
  // The page must work with no network: anything but its own origin is refused and recorded.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('http://127.0.0.1:')) return route.continue();
    errors.push(`network request to ${url}`);
    return route.abort();
  });
  t.after(() => {
    if (errors.length) throw new Error(`page errors:\n${errors.join('\n')}`);
  });
  return { browser, page, errors };
}
