// Bundles what `tracehook mcp` (src/cli/mcp.ts) uses of the Model Context Protocol SDK into
// dist/mcp-sdk.bundle.js: the low-level Server, the stdio transport and the two request schemas, with
// what they load (zod, ajv). The SDK is a devDependency, so the installed package needs no extra
// runtime dependency and no other command pays for it; the bundle is loaded only by `tracehook mcp`.
// Each bundled package's name, version and license head the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { LINE_LIMIT } from './bundle-line-limit.mjs';

const root = new URL('..', import.meta.url).pathname;
const outfile = join(root, 'dist/mcp-sdk.bundle.js');

const result = await build({
  stdin: {
    contents: [
      "export { Server } from '@modelcontextprotocol/sdk/server/index.js';",
      "export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
      "export { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';",
    ].join('\n'),
    resolveDir: root,
    loader: 'js',
  },
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minifyWhitespace: true,
  charset: 'ascii',
  lineLimit: LINE_LIMIT,
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});

// The packages whose files went in: node_modules/<name>/… or node_modules/@scope/<name>/….
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (!m || packages.has(m[1])) continue;
  const pkg = JSON.parse(readFileSync(join(root, 'node_modules', m[1], 'package.json'), 'utf8'));
  packages.set(m[1], `${m[1]} ${pkg.version} (${pkg.license ?? 'see its package'})`);
}
const banner = `// Bundled by scripts/bundle-mcp-sdk.mjs from: ${[...packages.values()].sort().join(', ')}.\n`;
writeFileSync(outfile, banner + readFileSync(outfile, 'utf8'));
console.log(`dist/mcp-sdk.bundle.js: ${(result.metafile.outputs['dist/mcp-sdk.bundle.js']?.bytes / 1024).toFixed(0)} KiB, ${packages.size} packages`);
