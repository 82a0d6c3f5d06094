import { INTERNAL_MESSAGE_PREFIX } from '../compat/node-child-process.js';
import { fillRandom } from '../provider/random-bytes.js';
import { threadId } from './thread.js';
import { stateKey } from '../state-key.js';

/**
 * The hidden formats that carry a trace context across threads and processes, and how each side
 * recognises them. Nothing here imports OpenTelemetry: a carrier is the plain object the
 * configured propagators write (`{ traceparent, tracestate?, baggage? }`).
 *
 * Three channels, three formats (docs/workers.md explains the choice):
 * Every carrier holds the channel's {@link CHANNEL_SECRET}: only carriers the preload attached are
 * ever removed or used.
 * - worker_threads `postMessage` (both directions): an {@link Envelope} around the user's value,
 *   sent only to a peer known to unwrap it (a worker this process started with the preload, or the
 *   instrumented parent of this worker, as {@link WorkerEnvironmentData} tells it);
 * - child-process IPC (`send` / `'message'`): a separate {@link IpcCarrierMessage} just before the
 *   user's message. Node delivers `NODE_`-prefixed messages as `'internalMessage'` and never as
 *   `'message'`, so a receiver without the preload never sees it;
 * - piscina / tinypool tasks: a {@link POOL_CARRIER_KEY} field on the pool's own internal task
 *   message (never on the user's task), which the pool's worker ignores.
 */

/** Propagation fields as the configured propagators write them (W3C `traceparent`, …). */
export type Carrier = Record<string, string>;

/**
 * The carrier of one message or task: the propagators' fields, or, when the context holds nothing
 * else (no `tracestate`, no baggage) and the propagators include W3C Trace Context, the
 * `traceparent` value alone (`00-<trace id>-<span id>-<flags>`): 55 characters to clone instead of
 * an object, and read without the propagators. Receivers accept both.
 */
export type MessageCarrier = Carrier | string;

/** `traceparent` of a span context (version 00). */
export function toTraceparent(spanContext: { traceId: string; spanId: string; traceFlags: number }): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${spanContext.traceFlags & 1 ? '01' : '00'}`;
}

/**
 * The remote span context of a version-00 `traceparent` written by {@link toTraceparent}; undefined
 * for any other shape. The caller checks the ids (`isSpanContextValid`).
 * @see https://www.w3.org/TR/trace-context/#traceparent-header
 */
export function parseTraceparent(value: string): { traceId: string; spanId: string; traceFlags: number; isRemote: true } | undefined {
  if (value.length !== 55 || !value.startsWith('00-') || value[35] !== '-' || value[52] !== '-') return undefined;
  const flags = value.slice(53);
  if (flags !== '01' && flags !== '00') return undefined;
  return { traceId: value.slice(3, 35), spanId: value.slice(36, 52), traceFlags: flags === '01' ? 1 : 0, isRemote: true };
}

/**
 * {@link parseTraceparent} with the ids checked too (W3C Trace Context: lowercase hex, not all zero),
 * so the caller needs no `isSpanContextValid`: undefined for any `traceparent` whose context is invalid.
 * One pass over the characters, on the per-message path (cheaper there than a regular expression).
 */
export function parseValidTraceparent(value: string): { traceId: string; spanId: string; traceFlags: number; isRemote: true } | undefined {
  if (value.length !== 55 || !isNonZeroHex(value, 3, 35) || !isNonZeroHex(value, 36, 52)) return undefined;
  return parseTraceparent(value);
}

/** `value[from..to)` is lowercase hex, not all zero. */
function isNonZeroHex(value: string, from: number, to: number): boolean {
  let nonZero = false;
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x30) continue;
    if (!((c > 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
    nonZero = true;
  }
  return nonZero;
}

/** Version of the formats below; a receiver ignores what it does not know. */
export const PROTOCOL_VERSION = 1;

/** 32 random hex chars: the secret of one channel or of one thread's worker channels. */
export function newChannelSecret(): string {
  return fillRandom(Buffer.allocUnsafe(16)).toString('hex');
}

/**
 * The secret of the worker channels this thread opens (the worker threads and pool workers it starts):
 * made once per thread, handed to the other end at its start (worker environment data, deleted in the
 * worker before its app's first line) and never to app code. Every carrier holds it, and a receiver
 * removes or uses only carriers holding the secret of their channel: the app cannot make one, whatever
 * it sends (even a copy of a carrier's fields, whose key it can read here), so its messages are never
 * unwrapped, swallowed or given a trace. A child process gets a secret of its own instead
 * ({@link IPC_SECRET_VARIABLE}): it can read its environment from `/proc/self/environ` however early the
 * variable is deleted, and data it shapes with a secret must pass nowhere but its own channel.
 */
export const CHANNEL_SECRET: string = newChannelSecret();

/**
 * The environment variable that hands a child the secret of its IPC channel, made for that child alone
 * ({@link newChannelSecret}); deleted by the child's early IPC hook before its app's first line.
 */
export const IPC_SECRET_VARIABLE = 'TRACEHOOK_IPC_SECRET';

/** The key that marks an envelope. Its value is the channel's secret ({@link CHANNEL_SECRET} of the thread that started the worker). */
export const ENVELOPE_KEY = '@tracehook/envelope';

/**
 * What an instrumented sender posts instead of `value` on a worker_threads channel whose other end
 * unwraps it: two keys and one string, the least a structured clone can carry (each key and string
 * costs the clone). Transferables, SharedArrayBuffers and MessagePorts inside `value` cross as they
 * would alone (the transfer list is passed unchanged).
 */
export interface Envelope {
  /** The {@link envelopeHeader}: the channel's secret, `messaging.message.id` and the carrier. */
  [ENVELOPE_KEY]: string;
  /** The user's value, exactly as given to `postMessage`. */
  value: unknown;
}

/**
 * The string of an {@link Envelope}: `<secret><id> <carrier>`, where the secret is the channel's
 * (32 hex chars), the id is `messaging.message.id` (`<pid>-<threadId>-<n>`, no space) and the carrier
 * is a lone `traceparent` (`00-…`) or the propagators' fields as JSON (`{…}`).
 */
export function envelopeHeader(secret: string, carrier: MessageCarrier, id: string): string {
  return secret + id + ' ' + (typeof carrier === 'string' ? carrier : JSON.stringify(carrier));
}

export function makeEnvelope(header: string, value: unknown): Envelope {
  // A literal key (not `[ENVELOPE_KEY]`): V8 then builds the object from one boilerplate shape.
  return { '@tracehook/envelope': header, value };
}

/** True for an {@link Envelope} of the channel with `secret` (a structured clone of one). Cheap for every other value. */
export function isEnvelope(data: unknown, secret: string): data is Envelope {
  return typeof data === 'object' && data !== null && isHeaderOf((data as Record<string, unknown>)[ENVELOPE_KEY], secret);
}

/** True for an {@link envelopeHeader} (or {@link PoolTaskCarrier}) of the channel with `secret`. */
export function isHeaderOf(header: unknown, secret: string): header is string {
  return typeof header === 'string' && header.length > secret.length && header.startsWith(secret);
}

/** The `messaging.message.id` of an envelope's header (checked by {@link isEnvelope}). */
export function envelopeId(header: string, secret: string): string {
  const space = header.indexOf(' ', secret.length);
  return space < 0 ? '' : header.slice(secret.length, space);
}

/** The carrier of an envelope's header: a `traceparent`, the propagators' fields, or undefined when unreadable. */
export function envelopeCarrier(header: string, secret: string): MessageCarrier | undefined {
  const space = header.indexOf(' ', secret.length);
  if (space < 0) return undefined;
  if (header.charCodeAt(space + 1) !== 0x7b /* { */) return header.slice(space + 1);
  try {
    const fields = JSON.parse(header.slice(space + 1)) as unknown;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
    for (const value of Object.values(fields)) if (typeof value !== 'string') return undefined;
    return fields as Carrier;
  } catch {
    return undefined;
  }
}

/** The `cmd` of {@link IpcCarrierMessage}; the `NODE_` prefix makes Node route it to `'internalMessage'`. */
export const IPC_CMD = 'NODE_TRACEHOOK_CONTEXT';

/**
 * Sent over an IPC channel just before the user's message number `seq` (1-based count of the
 * user messages sent on that channel by this side). The receiver counts the `'message'` events it
 * emits and binds the carrier to the event with the same number, so messages queued by Node until
 * a listener is added still pair up. `cancel` withdraws the carrier of a message whose `send`
 * threw.
 */
export interface IpcCarrierMessage {
  cmd: typeof IPC_CMD;
  v: typeof PROTOCOL_VERSION;
  /** The channel's secret (the parent made it for this child: {@link IPC_SECRET_VARIABLE}), both directions. */
  secret: string;
  seq: number;
  carrier?: MessageCarrier;
  id?: string;
  cancel?: true;
}

/** True for an {@link IpcCarrierMessage} of the channel with `secret`. */
export function isIpcCarrier(message: unknown, secret: string | undefined): message is IpcCarrierMessage {
  if (typeof message !== 'object' || message === null || secret === undefined) return false;
  const m = message as Partial<IpcCarrierMessage>;
  return m.cmd === IPC_CMD && m.v === PROTOCOL_VERSION && m.secret === secret;
}

/** Node's own rule (lib/internal/child_process.js `isInternal`): such messages never reach `'message'`. */
export function isInternalIpcMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const cmd = (message as { cmd?: unknown }).cmd;
  return typeof cmd === 'string' && cmd.length > INTERNAL_MESSAGE_PREFIX.length && cmd.startsWith(INTERNAL_MESSAGE_PREFIX);
}

/** The field added to a pool's internal task message (`{ task, taskId, filename, name }`). */
export const POOL_CARRIER_KEY = '@tracehook/task';

/**
 * Value of {@link POOL_CARRIER_KEY}: one string, as an envelope's ({@link envelopeHeader}), holding the
 * {@link CHANNEL_SECRET} of the thread that started the pool's worker, the message id and the carrier.
 */
export type PoolTaskCarrier = string;

/** The pools whose task protocol (piscina's, which tinypool forked) is understood. */
export type PoolName = 'piscina' | 'tinypool';

/** The internal task message of piscina / tinypool, as their workers receive it. */
export interface PoolTaskMessage {
  taskId: number;
  task: unknown;
  filename?: string;
  name?: string;
  [POOL_CARRIER_KEY]?: PoolTaskCarrier;
}

export function isPoolTaskMessage(message: unknown): message is PoolTaskMessage {
  return typeof message === 'object' && message !== null && typeof (message as { taskId?: unknown }).taskId === 'number' && 'task' in message;
}

/** The response a pool worker posts back: `{ taskId, result, error }`. */
export function isPoolResponse(message: unknown): message is { taskId: number; error?: unknown } {
  return typeof message === 'object' && message !== null && typeof (message as { taskId?: unknown }).taskId === 'number' && 'result' in message;
}

/**
 * Where `dist/workers/ipc-entry.js` (`--require`d into a child with an IPC channel) keeps the
 * carriers that arrive before the preload listens (`Symbol.for`: that file and the bundled preload
 * are separate module copies).
 */
export const EARLY_IPC_KEY = stateKey('ipc.early');

/** The state {@link EARLY_IPC_KEY} holds. */
export interface EarlyIpcState {
  /** The secret of the channel to the parent, taken from {@link IPC_SECRET_VARIABLE}. */
  secret: string;
  /** Carriers by the number of the user message they precede. */
  carriers: Map<number, IpcCarrierMessage>;
  /** User messages emitted before the preload took over. */
  received: number;
  /** Set by the preload: from then on the early hook only passes events through. */
  adopted: boolean;
}

/** The key under which a parent passes {@link WorkerEnvironmentData} (`worker_threads.setEnvironmentData`). */
export const ENV_DATA_KEY = 'tracehook.worker';

/**
 * What an instrumented parent tells a worker it starts, through `worker_threads` environment data
 * (cloned into the worker at construction, invisible to the app unless it asks for this key; the
 * worker deletes it before the app's first line so nested workers never inherit it).
 * Its presence means: the parent unwraps envelopes.
 */
export interface WorkerEnvironmentData {
  v: typeof PROTOCOL_VERSION;
  /** The parent's {@link CHANNEL_SECRET}: envelopes both ways, and pool carriers, hold it. */
  secret: string;
  /** The context of the `new Worker()` call; the worker's top level runs in it. */
  carrier?: Carrier;
  /** `messaging.destination.name`: the worker script as the app named it. */
  destination: string;
  /** Set when the worker is a pool's worker: its messages are the pool's protocol, not the app's. */
  pool?: PoolName;
  /** Flush hand-shake, see {@link CONTROL}. */
  control: Int32Array;
  /**
   * Where the app's own code resolves packages (the main thread's entry directory, `appDirectory()`): the worker's
   * preload looks for instrumentation and startup hook packages there, as its main thread does.
   */
  appDirectory?: string;
  /** The parent's epoch anchor of span times (`[s, ns]`, see `EpochAnchor`): one clock for every thread of the process. */
  epochAnchor?: readonly [number, number];
  /**
   * The parent loaded the preload with `--import`; the worker may have been given `--require` in its place only to
   * skip the ES module loader (preload-flags.ts, `withRequireEntry`): its own children and workers get `--import`.
   */
  importEntry?: true;
}

/**
 * Slots of the shared Int32Array through which a parent asks a worker to flush its spans (before
 * `terminate()`, and at the parent's exit) without any message on the app's channel:
 * - REQUEST: the parent increments it and notifies;
 * - ACK: the worker stores the REQUEST value it has served (after flushing) and notifies;
 * - IDLE: 1 while a pool worker is blocked waiting for a task, all spans flushed;
 * - READY: 1 once the worker serves requests;
 * - HOLDS: 1 while the worker may hold ended spans not yet flushed (a span ended since its last
 *   flush, or it cannot tell); with 0 the parent stops it without asking.
 */
export const CONTROL = { REQUEST: 0, ACK: 1, IDLE: 2, READY: 3, HOLDS: 4, LENGTH: 5 } as const;

let messageCount = 0;
const messageIdPrefix = `${process.pid}-${threadId}-`;

/** A `messaging.message.id` unique in this process tree: `<pid>-<threadId>-<n>`. */
export function nextMessageId(): string {
  return messageIdPrefix + ++messageCount;
}

/** `Atomics.waitAsync` (Node.js >= 16; not in the ES2023 lib typings). */
export type WaitAsyncResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };

/** `Atomics.waitAsync`, or undefined where the runtime lacks it. */
export const waitAsync = (Atomics as unknown as { waitAsync?: (array: Int32Array, index: number, value: number, timeoutMs?: number) => WaitAsyncResult }).waitAsync;
