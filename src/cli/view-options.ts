/**
 * The trace filter flags shared by `tracehook view` and `tracehook ui`, for node:util.parseArgs,
 * and their conversion to a {@link TraceFilter}.
 */
import { access } from 'node:fs/promises';
import { DEFAULT_SPANS_DIR } from '../config/spans-dir';
import { defaultSpanDirs, SPAN_DIR_MAX_DEPTH } from '../span-file/span-files';
import { parseDurationMs, parseTimeMs, type TraceFilter } from '../span-file/trace-filter';
import { escapeControlChars } from '../diag/control-chars';

/** parseArgs option specs of the filter flags. */
export const FILTER_OPTIONS = {
  service: { type: 'string', multiple: true },
  errors: { type: 'boolean' },
  'min-duration': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  trace: { type: 'string' },
  name: { type: 'string' },
  where: { type: 'string', multiple: true },
} as const;

/** The help lines of the filter flags. */
export const FILTER_HELP = `Filters (a trace is shown when it matches all given):
  --service <name>       a span of this service.name (repeat for any of several)
  --errors               a span with status ERROR
  --min-duration <d>     trace duration at least d: 250ms, 1.5s, 800us (a bare number is ms)
  --since <t>            trace start at or after t: 2026-11-23T19:00:00Z, 2026-11-23, or 15m / 2h / 1d ago
  --until <t>            trace start at or before t (same forms)
  --trace <id>           trace id (32 hex chars), or the traces whose id starts with a shorter prefix
  --name <glob>          a span whose name matches the glob (* any characters, ? one)
  --where <term>         a span whose attribute or resource attribute matches: key=value (exact),
                         key=prefix* (starts with), key (has it, or the text is in a name or value,
                         any case); repeat for all of several (each by some span)`;

/** parseArgs option specs shared by `view`, `ui` and `export`: which files are read. */
export const READ_OPTIONS = { 'any-owner': { type: 'boolean' } } as const;

/** The help lines of the DIR|FILE arguments and {@link READ_OPTIONS}, for `view`, `ui` and `export`. */
export const PATHS_HELP = `Arguments:
  DIR|FILE               span files (*.jsonl, one OTLP/JSON request per line) or directories of
                         them, searched ${SPAN_DIR_MAX_DEPTH} levels deep (symlinks to directories not followed);
                         default: $TRACEHOOK_SPANS_DIR, else ${DEFAULT_SPANS_DIR} (and the preload's
                         fallback <tmpdir>/spans-<uid>, read alone when ${DEFAULT_SPANS_DIR} is another
                         user's or writable by others without the sticky bit)
  --any-owner            read files of other users too (default: only yours and root's)

Span files are read as the preload writes them: regular files only, each up to its size when
opened; a symlink, FIFO, device, directory named *.jsonl or unreadable file is skipped with one
line, and the others are still read. A line longer than 64 MiB is skipped and counted.`;

/** The values parseArgs gives for {@link FILTER_OPTIONS}. */
export interface FilterValues {
  service?: string[];
  errors?: boolean;
  'min-duration'?: string;
  since?: string;
  until?: string;
  trace?: string;
  name?: string;
  where?: string[];
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
  for (const term of values.where ?? []) parts.push(`--where ${term}`);
  return parts.join(' ');
}

/**
 * The paths given, else the directories the preload writes to (see {@link defaultSpanDirs}).
 * @returns `notes`: lines for stderr about the default directory; `paths` is empty when no default is safe to read
 */
export async function spanPaths(positionals: string[], env: Record<string, string | undefined>): Promise<{ paths: string[]; explicit: boolean; notes: string[] }> {
  if (positionals.length > 0) return { paths: positionals, explicit: true, notes: [] };
  return { ...(await defaultSpanDirs(env)), explicit: false };
}

/** The files skipped (path → one line saying why), as lines for stderr: all when few, else the first ones and a count. */
export function skippedFilesNote(command: string, skipped: ReadonlyMap<string, string>): string {
  if (skipped.size === 0) return '';
  const reasons = [...skipped.values()];
  // File names come from the directory, whoever wrote it: escaped like span data.
  const shown = reasons.slice(0, SKIPPED_FILES_SHOWN).map((reason) => escapeControlChars(reason));
  if (reasons.length > shown.length) shown.push(`and ${reasons.length - shown.length} more`);
  return `tracehook ${command}: skipped ${skipped.size} file${skipped.size === 1 ? '' : 's'}:\n  ${shown.join('\n  ')}\n`;
}

const SKIPPED_FILES_SHOWN = 10;

/** The first path that does not exist (a dangling symlink counts as missing), if any. */
export async function firstMissing(paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) {
    try {
      await access(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return p;
    }
  }
  return undefined;
}

/** For `tracehook <command>`: prints `tracehook <command>: <message>` (control characters escaped) on `stderr`, returns the exit code 1. */
export function commandFail(command: string, stderr: { write(text: string): unknown }): (message: string) => number {
  return (message) => {
    stderr.write(`tracehook ${command}: ${escapeControlChars(message)}\n`);
    return 1;
  };
}

/** A count and its noun, singular for 1: `1 span`, `2 spans`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** parseArgs' message cut to its first sentence (the rest is advice about "--"), with a pointer to help. */
export function argumentError(err: unknown, command: string): string {
  return `${(err as Error).message.split('. ')[0]} (see tracehook ${command} --help)`;
}
