// Usage: node scripts/waterfall-screenshot.mjs <span dir of `npm run demo`> [out.png] [row text]
// Renders the demo's cross-process trace in the trace page (headless Debian chromium through
// playwright-core) and saves docs/img/waterfall.png for the README: the first trace without errors
// among those with the most services, the first span row containing `row text` (default
// grpc-service) selected. docs/img/workers.png is the same for test/fixtures/view/app.mjs's spans
// with `worker process`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const [dir, out = join(root, 'docs/img/waterfall.png'), rowText = 'grpc-service'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/waterfall-screenshot.mjs <span dir> [out.png]');
  process.exit(2);
}
const html = join(dir, 'traces.html');
execFileSync(process.execPath, [join(root, 'bin/tracehook.mjs'), 'view', dir, '--html', html], { stdio: 'inherit' });

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1440, height: 560 }, deviceScaleFactor: 1 });
await page.goto(pathToFileURL(html).href);
await page.waitForSelector('.trace-row');
const best = await page.$$eval('.trace-row', (rows) => rows.map((r) => [r.dataset.trace, r.querySelectorAll('.dot').length, r.textContent.includes('error')]));
best.sort((a, b) => Number(a[2]) - Number(b[2]) || b[1] - a[1]);
await page.click(`.trace-row[data-trace="${best[0][0]}"]`);
await page.waitForFunction((id) => document.querySelector('#trace-header').textContent.includes(id), best[0][0]);
await page.locator('.span-row', { hasText: rowText }).first().click();
await page.screenshot({ path: out });
await browser.close();
console.log(`wrote ${out}`);
