'use strict';
// A copy of the source that was never built (a git clone, `npm pack` without the prepack build) has
// no dist/: say so in one line naming the fix, rather than a "Cannot find module … Require stack".

const { existsSync } = require('node:fs');
const { join } = require('node:path');

/**
 * The one stderr line (with its newline) for a copy without its build, or undefined when the build
 * is there, so that the caller reports its own error instead.
 * @param {string} prefix - who speaks, e.g. `[tracehook] preload`
 * @param {string} [consequence] - what happens now, e.g. `the app runs untraced`
 */
exports.notBuiltLine = function notBuiltLine(prefix, consequence) {
  if (existsSync(join(__dirname, 'dist', 'preload.bundle.js'))) return undefined;
  const now = consequence ? `; ${consequence}` : '';
  return `${prefix}: dist/ is missing: this copy of @tracehook/register was not built; run \`npm run build\` in ${__dirname} (or install it from the npm registry)${now}\n`;
};
