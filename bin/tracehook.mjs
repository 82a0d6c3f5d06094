#!/usr/bin/env node
// `tracehook run|view|ui|export …`; see `tracehook --help`.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const notBuilt = require('../not-built.cjs').notBuiltLine('tracehook');
if (notBuilt) {
  process.stderr.write(notBuilt);
  process.exitCode = 1;
} else {
  process.exitCode = await require('../dist/cli/main.js').main(process.argv.slice(2));
}
