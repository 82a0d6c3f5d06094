import { getConfig } from '../config/current.js';
import { isDisabled, wantsEsmLoader } from '../config/environment.js';
import { getPreloadState, runningVersion } from '../state.js';
import { PACKAGE_VERSION } from '../state-key.js';

/**
 * What both entries (`register.mjs`, `register.cjs`) ask first, loading nothing else: false when
 * tracing is disabled or the preload already ran in this thread (a second `--import`, or both
 * `--import` and `--require`, or another tracehook version's preload), in which case loading it
 * again is a no-op.
 */
export function shouldStart(): boolean {
  const running = runningVersion();
  return !isDisabled(process.env) && !getPreloadState().started && (running === undefined || running === PACKAGE_VERSION);
}

/** Whether `register.mjs` should register import-in-the-middle's ESM loader hook (`TRACEHOOK_ESM_LOADER`). */
export function shouldRegisterEsmLoader(): boolean {
  return wantsEsmLoader(getConfig());
}
