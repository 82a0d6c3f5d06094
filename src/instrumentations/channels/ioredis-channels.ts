import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { ChannelMessage, ChannelSpans } from './channel-spans.js';
import { errorMessage } from './channel-spans.js';

/**
 * How many arguments after the command name `db.query.text` keeps (-1: all), the rest counted as
 * `[n other arguments]`: @opentelemetry/redis-common's table (Apache-2.0), which instrumentation-ioredis uses. ioredis
 * (≥ 5.11) already replaced what its own table redacts with `?`; its table keeps every argument of ACL and CONFIG
 * (`CONFIG SET requirepass <password>`), this one only the subcommand.
 */
const KEPT_ARGUMENTS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^ECHO/i, 0],
  [/^(GETSET|LPUSH|MSET|PFA|PSETEX|PUBLISH|RPUSH|SADD|SET|SPUBLISH|XADD|ZADD)/i, 1],
  [/^(HSET|HMSET|LSET|LINSERT)/i, 2],
  [/^(ACL|CONFIG)/i, 1],
  [/^(BIT|B[LRZ]|CLIENT|CLUSTER|COMMAND|DECR|DEL|EVAL|EX|FUNCTION|GEO|GET|HINCR|HMGET|HSCAN|INCR|L[TRLM]|MEMORY|P[EFISTU]|RPOP|S[CDIMORSU]|XACK|X[CDGILPRT]|Z[CDILMPRS])/i, -1],
];

/** `db.query.text` of a command: its name and the arguments {@link KEPT_ARGUMENTS} keeps, as redis-common writes it. */
export function redisQueryText(command: string, args: unknown): string {
  if (!Array.isArray(args) || args.length === 0) return command;
  const kept = KEPT_ARGUMENTS.find(([regex]) => regex.test(command))?.[1] ?? 0;
  const shown = kept >= 0 ? args.slice(0, kept) : args.slice();
  if (args.length > shown.length) shown.push(`[${args.length - kept} other arguments]`);
  return `${command} ${shown.join(' ')}`;
}

/** The ioredis spans' common attributes; `server.port` only when it is a number (not for a Unix socket path). */
function serverAttributes(message: ChannelMessage): Record<string, string | number> {
  const attributes: Record<string, string | number> = { 'db.system.name': 'redis' };
  if (typeof message.serverAddress === 'string') attributes['server.address'] = message.serverAddress;
  if (typeof message.serverPort === 'number') attributes['server.port'] = message.serverPort;
  return attributes;
}

/** An ioredis error as instrumentation-ioredis records it: an exception event and the status. */
function fail(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : errorMessage(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}

/**
 * ioredis's TracingChannels (ioredis ≥ 5.11): `ioredis:command` (each command as it is written to the server, its
 * arguments already redacted by ioredis), `ioredis:connect`, and `ioredis:batch` (a MULTI's `exec`, ioredis 6):
 * CLIENT spans as @opentelemetry/instrumentation-ioredis makes them (name = command, `db.operation.name`,
 * `db.system.name` `redis`, `db.query.text`, `server.address`/`server.port`; `MULTI <command>` for the commands a
 * MULTI sends), only inside a trace (its `requireParentSpan`). The batch itself gets no span, as with the patch.
 * @param tracer - returns the tracer of the current provider
 */
export function ioredisChannels(tracer: () => Tracer): ChannelSpans[] {
  let inMulti = 0;
  const startSpan = (name: string, attributes: Record<string, string | number>, parent: Context): Span | undefined => {
    if (trace.getSpan(parent) === undefined) return undefined;
    return tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  };
  return [
    {
      channel: 'ioredis:command',
      start(message, parent) {
        const command = message.command;
        if (typeof command !== 'string') return undefined;
        const operation = inMulti > 0 && command !== 'multi' && command !== 'exec' ? `MULTI ${command}` : command;
        return startSpan(command, { 'db.operation.name': operation, ...serverAttributes(message), 'db.query.text': redisQueryText(command, message.args) }, parent);
      },
      fail,
    },
    {
      channel: 'ioredis:connect',
      start: (message, parent) => startSpan('connect', { ...serverAttributes(message), 'db.query.text': 'connect' }, parent),
      fail,
      // The connection's socket, ready check, offline-queue flush and reconnects belong to no request.
      detached: true,
    },
    {
      // No span: marks the commands a MULTI's exec sends synchronously, between its `start` and `end`.
      channel: 'ioredis:batch',
      start: () => undefined,
      fail: () => undefined,
      window(open) {
        inMulti = Math.max(0, inMulti + (open ? 1 : -1));
      },
    },
  ];
}
