import type { EarlyIpcState } from './protocol.js';
import { EARLY_IPC_KEY, IPC_SECRET_VARIABLE, isIpcCarrier } from './protocol.js';
import { wrap } from '../patch/wrap.js';
import { INTERNAL_MESSAGE_EVENT } from '../compat/node-child-process.js';

/**
 * `--require`d (through `NODE_OPTIONS`) into a Node.js child that an instrumented parent starts
 * with an IPC channel. The child reads its channel from its first event-loop turn, while an
 * `--import` preload may still be loading: a carrier that arrives then is emitted as
 * `'internalMessage'` before the preload can listen, and would be lost (the user message it belongs
 * to is kept by Node until the app listens). This records such carriers, synchronously before
 * anything is read, for the preload to adopt. It loads no OpenTelemetry and does nothing else.
 */

function install(): void {
  const g = globalThis as typeof globalThis & { [EARLY_IPC_KEY]?: EarlyIpcState };
  // The parent's secret, out of the app's sight before its first line (and out of its children's env).
  const secret = process.env[IPC_SECRET_VARIABLE];
  delete process.env[IPC_SECRET_VARIABLE];
  if (typeof process.send !== 'function' || g[EARLY_IPC_KEY] !== undefined || !secret) return;
  const state: EarlyIpcState = { secret, carriers: new Map(), received: 0, adopted: false };
  g[EARLY_IPC_KEY] = state;
  const site = { component: 'workers', id: 'ipc-entry.process.emit', otherwise: 'IPC carriers that arrive before the preload listens are lost' };
  wrap(
    process,
    'emit',
    site,
    (emit) =>
      function (this: unknown, event: string | symbol, ...args: unknown[]) {
        if (!state.adopted) {
          const message = args[0];
          if (event === INTERNAL_MESSAGE_EVENT && isIpcCarrier(message, secret)) {
            if (message.cancel) state.carriers.delete(message.seq);
            else state.carriers.set(message.seq, message);
          } else if (event === 'message') {
            state.received++;
          }
        }
        return Reflect.apply(emit, this, [event, ...args]);
      } as typeof process.emit,
  );
}

install();
