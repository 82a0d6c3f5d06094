// dist/ is CommonJS so the `--require` entry and the `--import` entry share one module instance
// (no dual-package state); tsc does not copy package.json, so mark the folder here.
import { copyFileSync } from 'node:fs';
copyFileSync(new URL('../src/package.json', import.meta.url), new URL('../dist/package.json', import.meta.url));
// The trace page's HTML, CSS and browser script, read by dist/cli/ui/page.js (from page.ts).
for (const name of ['page-template.html', 'page-style.css', 'page-script.js']) {
  copyFileSync(new URL(`../src/cli/ui/${name}`, import.meta.url), new URL(`../dist/cli/ui/${name}`, import.meta.url));
}
