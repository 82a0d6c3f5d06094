#!/usr/bin/env node
// `tracehook run|view|ui|export …`; see `tracehook --help`.
import { createRequire } from 'node:module';

const { main } = createRequire(import.meta.url)('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
