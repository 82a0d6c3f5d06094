import { dirname } from 'node:path';
import * as api from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import * as instrumentation from '@opentelemetry/instrumentation';
import { moduleInternals } from '../compat/node-module.js';
import { PACKAGE_VERSION } from '../state-key.js';

let shared = false;

/**
 * Makes `require('@opentelemetry/instrumentation')` (and `/api`, `/core`) from an instrumentation
 * loaded later give the copy already evaluated in the preload bundle, when it resolves to the very
 * file that copy was bundled from: the same version, so the same behaviour, without evaluating it
 * a second time (≈ 60 files for the three). An instrumentation with its own nested copy, or the
 * app's own copy, resolves elsewhere and is left alone. Once per thread; never throws.
 */
export function shareBundledModules(): void {
  if (shared) return;
  shared = true;
  const Module = moduleInternals();
  if (Module === undefined) return;
  for (const [id, exports] of [
    ['@opentelemetry/instrumentation', instrumentation],
    ['@opentelemetry/api', api],
    ['@opentelemetry/core', core],
  ] as const) {
    try {
      const filename = require.resolve(id);
      if (Module._cache[filename]) continue;
      const m = new Module(filename);
      m.filename = filename;
      m.paths = Module._nodeModulePaths(dirname(filename));
      m.exports = exports;
      m.loaded = true;
      Module._cache[filename] = m;
    } catch {
      // Not resolvable from here: the instrumentation loads its own copy, as it would have.
    }
  }
}

/** `Symbol.for` of this key on `globalThis`: where {@link publishSharedModules} puts the copies, by package name. */
export const SHARED_MODULES_KEY = `tracehook@${PACKAGE_VERSION}:shared-modules`;

/**
 * Gives the files built to use the preload bundle's copies of @opentelemetry/api, core and instrumentation
 * (`dist/instrumentations/bundled/*.js` and `dist/otlp-http.bundle.js`, same build, so same versions) those copies
 * without resolving any path: each `require()` of the three in those files reads
 * `globalThis[Symbol.for(SHARED_MODULES_KEY)][id]` first (scripts/shared-modules-plugin.mjs), which spares
 * {@link shareBundledModules}' three resolutions and the files' own (bench: startup, express + pg + ioredis row). Published when the first such file is
 * loaded, never at startup (a preload that does not start leaves nothing on `globalThis`). Once per thread.
 */
export function publishSharedModules(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for(SHARED_MODULES_KEY)] ??= {
    '@opentelemetry/api': api,
    '@opentelemetry/core': core,
    '@opentelemetry/instrumentation': instrumentation,
  };
}
