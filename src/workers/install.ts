import type { TracehookConfig } from '../config/environment.js';
import { logWarn } from '../diag/logger.js';
import { whenBuiltinLoaded } from '../patch/builtin-loaded.js';
import { onProcessEvent } from '../preload/signals.js';
import { installChildProcessChild, installChildProcessParent } from './child-process.js';
import { installPoolMain, installPoolPorts } from './pool-main.js';
import { installPoolWorker, onPoolStartup } from './pool-worker.js';
import { setCompactCarrier, setMessagingSpans } from './messaging-spans.js';
import type { Carrier } from './protocol.js';
import { carrierFromEnv } from '../propagation/env-carrier.js';
import { enterStartupContext } from './startup-context.js';
import { isMainThread } from './thread.js';
import { flushWorkersSync, installWorkerThreadsMain } from './worker-threads-main.js';
import { flushShortlyAfterEnd, installWorkerSide, takeEnvironmentData } from './worker-threads-worker.js';
import { stateKey } from '../state-key.js';

const INSTALLED = stateKey('workers.installed');

/**
 * Makes the trace cross into worker threads, child processes, cluster workers and worker pools
 * started from this thread, and continues the trace of whoever started this one. Called once per
 * thread by the preload, after the TracerProvider is registered and before the app's first line.
 * Never throws: a part that cannot be installed is logged and left out.
 * @see docs/workers.md
 */
export function installWorkerPropagation(config: TracehookConfig): void {
  const g = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (g[INSTALLED]) return;
  g[INSTALLED] = true;
  setMessagingSpans(config.messagingSpans);
  setCompactCarrier(config.propagators.includes('tracecontext'));

  // This thread as the receiving end: a worker thread of an instrumented parent, or a child process.
  let startupCarrier: Carrier | undefined;
  if (isMainThread) {
    guarded('child process IPC', installChildProcessChild);
    startupCarrier = carrierFromEnv(process.env);
  } else {
    const data = guarded('worker side', takeEnvironmentData);
    guarded('worker side', () => installWorkerSide(data, onPoolStartup));
    if (cheapFlush(config)) flushShortlyAfterEnd();
    if (data?.pool !== undefined) guarded('pool worker', () => installPoolWorker(data.pool!, data.secret, data.control, cheapFlush(config)));
    startupCarrier = data?.carrier;
  }

  // This thread as the starting end; node:worker_threads and node:child_process as they load (an app that never
  // starts a worker or a child does not pay for them at startup: bench: startup, spawn → first HTTP 200).
  whenBuiltinLoaded('worker_threads', () => {
    guarded('worker_threads', () => installWorkerThreadsMain(config));
    guarded('pools', installPoolPorts);
    syncExports();
  });
  whenBuiltinLoaded('child_process', () => {
    guarded('child_process', installChildProcessParent);
    syncExports();
  });
  guarded('pools', installPoolMain);
  guarded('exit', () => onProcessEvent('exit', flushWorkersSync));
  syncExports();

  guarded('startup context', () => enterStartupContext(startupCarrier));
}

/** The default hook writing span files: a synchronous flush costs only the writes. */
function cheapFlush(config: TracehookConfig): boolean {
  return config.startupHook === undefined && config.exporterImportPath === undefined && config.tracesExporter === 'file';
}

/** ES modules import built-ins' named exports once: refreshed with the patched functions. */
function syncExports(): void {
  guarded('exports', () => (require('node:module') as typeof import('node:module')).syncBuiltinESMExports());
}

function guarded<T>(part: string, install: () => T): T | undefined {
  try {
    return install();
  } catch (err) {
    logWarn('workers', `${part}: not instrumented (${(err as Error)?.message ?? err}); the trace does not cross there`);
    return undefined;
  }
}
