// dist/ is CommonJS so the `--require` entry and the `--import` entry share one module instance
// (no dual-package state); tsc does not copy package.json, so mark the folder here.
import { copyFileSync } from 'node:fs';
copyFileSync(new URL('../src/package.json', import.meta.url), new URL('../dist/package.json', import.meta.url));
