/**
 * `tracehook view`: prints the traces in span files as indented trees (or as JSON).
 * The `tracehook` bin dispatches `tracehook view ...` here with the arguments after `view`.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readSpans } from '../span-file/decode';
import { traceToJson } from '../span-file/to-json';
import { buildTraces, renderTraces } from '../span-file/tree';
import type { SkippedLine } from '../span-file/types';

/** Where `runView` writes and which environment it reads; tests pass their own. */
export interface ViewIO {
  stdout: { write(text: string, callback?: (err?: Error | null) => void): unknown };
  stderr: { write(text: string, callback?: (err?: Error | null) => void): unknown };
  env: Record<string, string | undefined>;
}

const DEFAULT_SPANS_DIR = '/tmp/spans';

/** The text `tracehook view --help` prints. */
export const VIEW_HELP = `Usage: tracehook view [DIR|FILE...] [--trace <traceId>] [--json]

Prints the traces found in span files as indented trees: one line per span with its start
offset, name, kind, duration, status, process (service[pid]) and HTTP/gRPC detail. Spans whose
parent is in no file read are shown at the root, marked with ⋯.

Arguments:
  DIR|FILE           span files (*.jsonl, one OTLP/JSON request per line) or directories of
                     them; default: $TRACEHOOK_SPANS_DIR, else ${DEFAULT_SPANS_DIR}

Options:
  --trace <traceId>  only the trace with this id (32 hex chars), or the traces whose id starts
                     with a shorter prefix
  --json             print {"traces":[...]} as JSON instead (timestamps as decimal strings)
  -h, --help         print this help

Exit status: 0 when spans were printed, 1 when none were found or an argument is wrong.
`;

/**
 * Runs `tracehook view` with `argv` (the arguments after `view`).
 * Never throws for bad input: it prints one line naming the argument on stderr and returns 1.
 * @returns the exit code: 0 when traces were printed (or help), 1 otherwise.
 */
export async function runView(argv: string[], io: ViewIO = defaultIO()): Promise<number> {
  const fail = async (message: string): Promise<number> => {
    await write(io.stderr, `tracehook view: ${message}\n`);
    return 1;
  };

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        trace: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    // parseArgs' messages go on with advice about "--"; its first sentence names the argument.
    const first = (err as Error).message.split('. ')[0];
    return fail(`${first} (see tracehook view --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    await write(io.stdout, VIEW_HELP);
    return 0;
  }

  const tracePrefix = values.trace?.toLowerCase();
  if (tracePrefix !== undefined && !/^[0-9a-f]{1,32}$/.test(tracePrefix)) {
    return fail(`--trace: expected a trace id (32 hex chars, or a prefix of one), got ${JSON.stringify(values.trace)}`);
  }

  const explicit = positionals.length > 0;
  const paths = explicit ? positionals : [io.env.TRACEHOOK_SPANS_DIR || DEFAULT_SPANS_DIR];
  for (const p of paths) {
    if (!existsSync(p)) {
      return fail(
        explicit
          ? `${p}: no such file or directory`
          : `no spans found: ${p} does not exist (pass a directory or file, or set TRACEHOOK_SPANS_DIR)`,
      );
    }
  }

  let read;
  try {
    read = await readSpans(paths);
  } catch (err) {
    return fail(`cannot read ${paths.join(', ')}: ${(err as Error).message}`);
  }
  if (read.skipped.length > 0) await write(io.stderr, skippedNote(read.skipped));
  if (read.files.length === 0) return fail(`no span files (*.jsonl) in ${paths.join(', ')}`);

  let traces = buildTraces(read.spans);
  if (traces.length === 0) {
    return fail(`no spans in ${read.files.length} span file${read.files.length === 1 ? '' : 's'} under ${paths.join(', ')}`);
  }
  if (tracePrefix !== undefined) {
    traces = traces.filter((t) => t.traceId.startsWith(tracePrefix));
    if (traces.length === 0) {
      return fail(`--trace: no trace id starts with ${tracePrefix} in ${paths.join(', ')} (${buildTraces(read.spans).length} traces read)`);
    }
  }

  if (values.json) {
    await write(io.stdout, `${JSON.stringify({ traces: traces.map(traceToJson) }, null, 2)}\n`);
  } else {
    await write(io.stdout, renderTraces(traces));
  }
  return 0;
}

function skippedNote(skipped: SkippedLine[]): string {
  const shown = skipped.slice(0, 3).map((s) => `${s.file}:${s.line}${s.truncated ? ' (truncated last line)' : ''}: ${s.reason}`);
  if (skipped.length > shown.length) shown.push(`and ${skipped.length - shown.length} more`);
  const n = skipped.length;
  return `tracehook view: skipped ${n} line${n === 1 ? '' : 's'} that ${n === 1 ? 'is' : 'are'} not valid OTLP/JSON:\n  ${shown.join('\n  ')}\n`;
}

// Resolve once the text is handed to the OS, so a caller that exits right after loses nothing.
function write(stream: ViewIO['stdout'], text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}

function defaultIO(): ViewIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
