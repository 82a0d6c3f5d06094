import { PACKAGE_VERSION, stateKey } from './state-key.js';
/**
 * Per-thread state of the preload. It lives on `globalThis` under a versioned `Symbol.for` key
 * ({@link stateKey}) so that a second copy of this build (a second `--import`, or the CJS and ESM
 * entries both loaded) sees the same state and stays a no-op, while another tracehook version in the
 * process never shares it (it sees {@link runningVersion} instead).
 */
export interface PreloadState {
  /** The preload started in this thread (set before any import it makes). */
  started: boolean;
  /** Resolves when the startup hook has run (or failed). */
  ready?: Promise<void>;
  /**
   * Exports must be complete when `export()` returns: the process is in its `exit` event, or a
   * worker thread is about to be stopped or parked where no later turn of its event loop comes.
   * The file exporter then writes at once; ExitSafeSpanExporter hands OTLP spans to its sender.
   */
  synchronousExport?: boolean;
  /**
   * When the process is ending: the time (`Date.now()`, ms) past which nothing at exit may wait
   * any more (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS` after the ending began). Unset while it runs.
   */
  exitDeadline?: number;
  /**
   * `import()` from a normally loaded module, set by src/preload/load-bundle.ts when it compiles the
   * bundle through `vm.Script` (from a V8 code cache): an `import()` written in such code needs vm's
   * main-context loader, which prints an ExperimentalWarning into the app's stderr.
   */
  importModule?: (specifier: string) => Promise<unknown>;
  /**
   * Notes that this thread ran the code a tag names (`served`: its first sampled span ended; a package name: an
   * instrumentation patched that package as it loaded): src/preload/load-bundle.ts then writes, in a later turn, a
   * V8 code cache that holds that code too, unless its cache already did. Idempotent and cheap; unset when the
   * preload was not compiled with a cache.
   */
  codeReached?: (tag: string) => void;
  /**
   * `require()` of one of the build's bundles that loads after startup (a lazily loaded instrumentation's),
   * compiled with its V8 code cache; set by src/preload/load-bundle.ts when it compiled the preload so.
   */
  loadCompiled?: (file: string) => unknown;
  /**
   * This worker thread was given `--require register.cjs` in place of its starter's `--import register.mjs` only to
   * spare it the ES module loader (src/workers/preload-flags.ts, `withRequireEntry`): for the children and workers
   * it starts, it loaded the preload as `--import` did.
   */
  importEntry?: boolean;
}

const STATE_KEY = stateKey('state');

type GlobalWithState = typeof globalThis & { [STATE_KEY]?: PreloadState };

/**
 * Unversioned on purpose: every tracehook version reads it. The version whose preload started in this thread (a
 * string, never an object), so that a second version loaded into the same process stays a no-op.
 */
const RUNNING_KEY = Symbol.for('tracehook.running');

type GlobalWithRunning = typeof globalThis & { [RUNNING_KEY]?: unknown };

/** The version of tracehook whose preload started in this thread, or undefined. */
export function runningVersion(): string | undefined {
  const running = (globalThis as GlobalWithRunning)[RUNNING_KEY];
  return typeof running === 'string' ? running : undefined;
}

/**
 * Claims this thread for this version's preload.
 * @returns false when another tracehook version's preload has started here (this one must not)
 */
export function claimThread(): boolean {
  const g = globalThis as GlobalWithRunning;
  g[RUNNING_KEY] ??= PACKAGE_VERSION;
  return g[RUNNING_KEY] === PACKAGE_VERSION;
}

/** The state of this thread, created on first use. */
export function getPreloadState(): PreloadState {
  const g = globalThis as GlobalWithState;
  return (g[STATE_KEY] ??= { started: false });
}
