/**
 * The trace filter flags shared by `tracehook view` and `tracehook ui`, for node:util.parseArgs,
 * and their conversion to a {@link TraceFilter}.
 */
import { readSpansDirConfig } from '../config/spans-dir';
import { parseDurationMs, parseTimeMs, type TraceFilter } from '../span-file/trace-filter';

/** parseArgs option specs of the filter flags. */
export const FILTER_OPTIONS = {
  service: { type: 'string', multiple: true },
  errors: { type: 'boolean' },
  'min-duration': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  trace: { type: 'string' },
  name: { type: 'string' },
} as const;

/** The help lines of the filter flags. */
export const FILTER_HELP = `Filters (a trace is shown when it matches all given):
  --service <name>       a span of this service.name (repeat for any of several)
  --errors               a span with status ERROR
  --min-duration <d>     trace duration at least d: 250ms, 1.5s, 800us (a bare number is ms)
  --since <t>            trace start at or after t: 2026-11-23T19:00:00Z, 2026-11-23, or 15m / 2h / 1d ago
  --until <t>            trace start at or before t (same forms)
  --trace <id>           trace id (32 hex chars), or the traces whose id starts with a shorter prefix
  --name <glob>          a span whose name matches the glob (* any characters, ? one)`;

/** The values parseArgs gives for {@link FILTER_OPTIONS}. */
export interface FilterValues {
  service?: string[];
  errors?: boolean;
  'min-duration'?: string;
  since?: string;
  until?: string;
  trace?: string;
  name?: string;
}

/**
 * Builds the filter from parsed flags.
 * @throws Error naming the flag, the value and what is accepted, for a value that does not parse
 */
export function filterFromValues(values: FilterValues, nowMs = Date.now()): TraceFilter {
  const filter: TraceFilter = {};
  if (values.service?.length) filter.services = values.service;
  if (values.errors) filter.errors = true;
  if (values.name !== undefined) filter.name = values.name;
  if (values.trace !== undefined) {
    const prefix = values.trace.toLowerCase();
    if (!/^[0-9a-f]{1,32}$/.test(prefix)) {
      throw new Error(`--trace: expected a trace id (32 hex chars, or a prefix of one), got ${JSON.stringify(values.trace)}`);
    }
    filter.tracePrefix = prefix;
  }
  if (values['min-duration'] !== undefined) {
    const ms = parseDurationMs(values['min-duration']);
    if (ms === undefined) {
      throw new Error(`--min-duration: expected a duration such as 250ms, 1.5s or 800us, got ${JSON.stringify(values['min-duration'])}`);
    }
    filter.minDurationMs = ms;
  }
  for (const flag of ['since', 'until'] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const ms = parseTimeMs(text, nowMs);
    if (ms === undefined) {
      throw new Error(`--${flag}: expected an ISO 8601 date or time (2026-11-23T19:00:00Z) or a time ago (15m, 2h, 1d), got ${JSON.stringify(text)}`);
    }
    filter[flag === 'since' ? 'sinceMs' : 'untilMs'] = ms;
  }
  return filter;
}

/** The filter as the flags that give it, for messages ("no trace matches --errors --service front"). */
export function describeFilter(values: FilterValues): string {
  const parts: string[] = [];
  for (const s of values.service ?? []) parts.push(`--service ${s}`);
  if (values.errors) parts.push('--errors');
  for (const flag of ['min-duration', 'since', 'until', 'trace', 'name'] as const) {
    if (values[flag] !== undefined) parts.push(`--${flag} ${values[flag]}`);
  }
  return parts.join(' ');
}

/** The paths given, else the preload's spans directory: `$TRACEHOOK_SPANS_DIR`, else `/tmp/spans`. */
export function spanPaths(positionals: string[], env: Record<string, string | undefined>): { paths: string[]; explicit: boolean } {
  const explicit = positionals.length > 0;
  return { paths: explicit ? positionals : [readSpansDirConfig(env).spansDir], explicit };
}

/** parseArgs' message cut to its first sentence (the rest is advice about "--"), with a pointer to help. */
export function argumentError(err: unknown, command: string): string {
  return `${(err as Error).message.split('. ')[0]} (see tracehook ${command} --help)`;
}
