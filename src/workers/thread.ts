import { isBuiltinLoaded } from '../patch/builtin-loaded.js';

type WorkerThreads = typeof import('node:worker_threads');

// Node.js loads node:worker_threads while it bootstraps every worker thread (Node.js 20 to 26), before any
// preload: a thread where it is not loaded yet is the main thread, and need not load it to know (bench: startup, spawn → first HTTP 200, tracehook-files row).
const wt = isBuiltinLoaded('worker_threads') ? (require('node:worker_threads') as WorkerThreads) : undefined;

/** Whether this is the process's main thread (worker_threads' `isMainThread`), without loading node:worker_threads there. */
export const isMainThread: boolean = wt?.isMainThread ?? true;

/** worker_threads' `threadId` of this thread: 0 on the main thread. */
export const threadId: number = wt?.threadId ?? 0;
