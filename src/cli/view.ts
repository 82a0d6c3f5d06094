/**
 * `tracehook view`: the traces in span files as trees, as a one-line-per-trace list, as OTLP/JSON
 * or as a self-contained HTML waterfall, with filters. The `tracehook` bin dispatches
 * `tracehook view ...` here with the arguments after `view`.
 *
 * Reading is streaming: the files are indexed line by line (a summary per trace, see SpanIndex),
 * then only the spans of the traces shown are read again, a bounded chunk of traces at a time.
 */
import { open } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { escapeControlChars as printable, escapeControlCharsInJson } from '../diag/control-chars';
import { filterRequestLine } from '../span-file/otlp-filter';
import { ansiPaint, colorEnabled, noPaint, paintCell, type Paint } from '../span-file/paint';
import { SpanIndex, type TraceSummary } from '../span-file/span-index';
import { SPAN_DIR_MAX_DEPTH } from '../span-file/span-files';
import { formatMs, rootLabel } from '../span-file/span-label';
import type { SpanQuery } from '../span-file/span-search';
import { chunksOfSpans, compareDecoded, filterByQueries, findTrace, parseQueries, traceCriticalPath } from '../span-file/trace-analysis';
import { matchesTraceFilter, type TraceFilter } from '../span-file/trace-filter';
import { buildTraces, columnWidths, renderTrace } from '../span-file/tree';
import type { SkippedLine } from '../span-file/types';
import { buildStaticPage } from './ui/page';
import { criticalPathAnnotation, renderComparison, renderCriticalSummary } from './view-analysis';
import { argumentError, describeFilter, FILTER_HELP, FILTER_OPTIONS, filterFromValues, firstMissing, PATHS_HELP, plural, READ_OPTIONS, skippedFilesNote, spanPaths } from './view-options';

/** Where `runView` writes and which environment it reads; tests pass their own. */
export interface ViewIO {
  stdout: { write(text: string, callback?: (err?: Error | null) => void): unknown; isTTY?: boolean };
  stderr: { write(text: string, callback?: (err?: Error | null) => void): unknown };
  env: Record<string, string | undefined>;
}

/** Trees are built for at most about this many spans at once. */
const TREE_CHUNK_SPANS = 20_000;

/** The text `tracehook view --help` prints. */
export const VIEW_HELP = `Usage: tracehook view [DIR|FILE...] [filters] [--list] [--verbose] [--json] [--html FILE] [--critical-path]
       tracehook view [DIR|FILE...] --compare TRACE_A TRACE_B

Prints the traces found in span files as indented trees: one line per span with its start
offset, name, kind, duration, status, process (service[pid], service[pid:tN] for worker thread N)
and HTTP/gRPC detail. Spans whose parent is in no file read are shown at the root, marked with ⋯.

${PATHS_HELP}

${FILTER_HELP}

Output:
  --critical-path        on each tree, every span's self time (its duration minus the time in its
                         children) and ● on the spans of the critical path: the chain that decided
                         the trace's duration, across processes and threads; under the tree, the
                         spans the path spent most time in
  --compare <A> <B>      compare two traces (ids, or unique prefixes of them) span by span, matched
                         by service and name from the root down: the spans that grew or shrank,
                         largest change first, and those in one trace only
  -l, --list             one line per trace: start, trace id, duration, spans, status, root span
                         with its route or URL path (service), services
  --sort <key>           time (oldest first, the default) or duration (longest first)
  --limit <n>            at most n traces (the first n in sort order)
  -v, --verbose          under each span: attributes, events (exceptions with their messages), links
  --json                 the spans of the traces shown as OTLP/JSON, one ExportTraceServiceRequest
                         per line (the span file format), for other tools
  --html <file>          write a self-contained HTML page (trace list, waterfall, details) to file
  -h, --help             print this help

Colours on a terminal; none when piped or when NO_COLOR is set (FORCE_COLOR=1 forces them).
Exit status: 0 when traces were shown, 1 when none were found or an argument is wrong.
`;

/**
 * Runs `tracehook view` with `argv` (the arguments after `view`).
 * Never throws for bad input: it prints one line naming the argument on stderr and returns 1.
 * @returns the exit code: 0 when traces were shown (or help), 1 otherwise.
 */
export async function runView(argv: string[], io: ViewIO = defaultIO()): Promise<number> {
  const fail: Fail = async (message) => {
    await write(io.stderr, `tracehook view: ${printable(message)}\n`);
    return 1;
  };
  const settings = await viewSettings(argv, io, fail);
  if (typeof settings === 'number') return settings;
  const found = await selectTraces(settings, io, fail);
  if (typeof found === 'number') return found;
  const { index, selected } = found;
  const { values } = settings;

  const paint = colorEnabled(io.stdout, io.env) ? ansiPaint : noPaint;
  if (values.compare) return writeComparison(io, index, selected, values.compare as [string, string], paint, fail);
  if (values.html !== undefined) return writeHtml(io, index, selected, values.html, fail);
  if (values.json) await writeJson(io, index, selected);
  else if (values.list) await write(io.stdout, renderList(selected, paint));
  else await writeTrees(io, index, selected, { paint, verbose: values.verbose === true, criticalPath: values['critical-path'] === true });
  return 0;
}

/** Prints one line on stderr. @returns the exit code 1 */
type Fail = (message: string) => Promise<number>;

// `tracehook view` options; throws as parseArgs does (an unknown option, a missing value).
function parseViewArgv(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...FILTER_OPTIONS,
      ...READ_OPTIONS,
      list: { type: 'boolean', short: 'l' },
      sort: { type: 'string' },
      limit: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      json: { type: 'boolean' },
      html: { type: 'string' },
      'critical-path': { type: 'boolean' },
      compare: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

// `--compare A B` takes two values, which parseArgs cannot say: the second is moved behind a second `--compare`.
function splitCompare(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]);
    if (argv[i] === '--') {
      out.push(...argv.slice(i + 1));
      break;
    }
    if (argv[i] === '--compare' && i + 2 < argv.length && !argv[i + 1].startsWith('-') && !argv[i + 2].startsWith('-')) {
      out.push(argv[i + 1], '--compare', argv[i + 2]);
      i += 2;
    }
  }
  return out;
}

/** What the arguments ask for. */
interface ViewSettings {
  values: ReturnType<typeof parseViewArgv>['values'];
  filter: TraceFilter;
  /** --where terms: every one matched by some span of a trace shown. */
  queries: SpanQuery[];
  sort: 'time' | 'duration';
  /** Most traces shown; `Infinity` without --limit. */
  limit: number;
  paths: string[];
}

/** The settings `argv` asks for, or the exit code when it is --help or wrong (said on stderr). */
async function viewSettings(argv: string[], io: ViewIO, fail: Fail): Promise<ViewSettings | number> {
  let parsed;
  try {
    parsed = parseViewArgv(splitCompare(argv));
  } catch (err) {
    return fail(argumentError(err, 'view'));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    await write(io.stdout, VIEW_HELP);
    return 0;
  }

  let filter: TraceFilter;
  let queries: SpanQuery[];
  try {
    filter = filterFromValues(values);
    queries = parseQueries(values.where ?? [], '--where');
  } catch (err) {
    return fail((err as Error).message);
  }
  const sort = values.sort ?? 'time';
  if (sort !== 'time' && sort !== 'duration') return fail(`--sort: expected time or duration, got ${JSON.stringify(sort)}`);
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) return fail(`--limit: expected a whole number ≥ 1, got ${JSON.stringify(values.limit)}`);
  const outputs = [values.list && '--list', values.json && '--json', values.html !== undefined && '--html'].filter(Boolean);
  if (outputs.length > 1) return fail(`${outputs.join(' and ')} cannot be combined: choose one output`);
  if (values['critical-path'] && outputs.length > 0) return fail(`--critical-path draws on the trees: it cannot be combined with ${outputs[0]}`);
  if (values.compare !== undefined) {
    if (values.compare.length !== 2) return fail(`--compare: expected two trace ids (--compare TRACE_A TRACE_B), got ${values.compare.length}`);
    const others = [...outputs, values['critical-path'] && '--critical-path', describeFilter(values), values.limit !== undefined && '--limit', values.sort !== undefined && '--sort'].filter(Boolean);
    if (others.length > 0) return fail(`--compare shows two traces named by id: it cannot be combined with ${others.join(' ')}`);
  }

  const { paths, explicit, notes } = await spanPaths(positionals, io.env);
  for (const note of notes) await write(io.stderr, `tracehook view: ${note}\n`);
  if (paths.length === 0) return fail('no spans found (pass a directory or file, or set TRACEHOOK_SPANS_DIR)');
  const missing = await firstMissing(paths);
  if (missing !== undefined) {
    return fail(explicit ? `${missing}: no such file or directory` : `no spans found: ${missing} does not exist (pass a directory or file, or set TRACEHOOK_SPANS_DIR)`);
  }
  return { values, filter, queries, sort, limit, paths };
}

/**
 * Indexes the span files and picks the traces to show, in order; notes skipped files and lines on stderr.
 * @returns them, or the exit code when there are none (said on stderr)
 */
async function selectTraces(settings: ViewSettings, io: ViewIO, fail: Fail): Promise<{ index: SpanIndex; selected: TraceSummary[] } | number> {
  const { values, filter, queries, sort, limit, paths } = settings;
  const index = new SpanIndex(paths, { anyOwner: values['any-owner'] === true });
  try {
    await index.refresh({ final: true });
  } catch (err) {
    return fail(`cannot read ${paths.join(', ')}: ${(err as Error).message}`);
  }
  if (index.skippedFiles.size > 0) await write(io.stderr, skippedFilesNote('view', index.skippedFiles));
  if (index.skippedCount > 0) await write(io.stderr, skippedNote(index.skipped, index.skippedCount));
  const files = index.fileList;
  if (files.length === 0) return fail(`no span files (*.jsonl) in ${paths.join(', ')} (nor in directories up to ${SPAN_DIR_MAX_DEPTH} levels below)`);
  const all = index.summaries();
  if (all.length === 0) {
    return fail(`no spans in ${files.length} span file${files.length === 1 ? '' : 's'} under ${paths.join(', ')}`);
  }

  const matching = all.filter((s) => matchesTraceFilter(s, filter)).sort(sort === 'time' ? byStart : byDuration);
  const selected = (await filterByQueries(index, matching, queries)).slice(0, limit);
  if (selected.length === 0) {
    const onlyTrace = filter.tracePrefix !== undefined && Object.keys(filter).length === 1;
    return fail(
      onlyTrace
        ? `--trace: no trace id starts with ${filter.tracePrefix} in ${paths.join(', ')} (${plural(all.length, 'trace')} read)`
        : `no trace matches ${describeFilter(values)} in ${paths.join(', ')} (${plural(all.length, 'trace')} read)`,
    );
  }
  return { index, selected };
}

/** --html: the page of the selected traces, written to `path`. @returns the exit code */
async function writeHtml(io: ViewIO, index: SpanIndex, selected: TraceSummary[], path: string, fail: Fail): Promise<number> {
  let bytes = 0;
  try {
    const file = await open(path, 'w');
    try {
      // Written piece by piece: the page of a big directory is never one string in memory.
      for await (const piece of buildStaticPage(index, selected)) bytes += (await file.write(piece)).bytesWritten;
    } finally {
      await file.close();
    }
  } catch (err) {
    return fail(`--html: cannot write ${path}: ${(err as Error).message}`);
  }
  const spans = selected.reduce((n, s) => n + s.spanCount, 0);
  await write(io.stdout, `wrote ${path}: ${plural(selected.length, 'trace')}, ${plural(spans, 'span')} (${(bytes / 1024).toFixed(0)} KiB)\n`);
  return 0;
}

/** --json: the selected traces' spans as span-file lines (OTLP/JSON), other traces' spans left out. */
async function writeJson(io: ViewIO, index: SpanIndex, selected: TraceSummary[]): Promise<void> {
  const ids = new Set(selected.map((s) => s.traceId));
  let unwritable = 0;
  for await (const { text } of index.lines(ids)) {
    let out;
    try {
      out = filterRequestLine(text, (id) => ids.has(id));
    } catch {
      // Rebuilding a line recurses through its values: one nested thousands deep cannot be rebuilt.
      unwritable++;
      continue;
    }
    if (out !== undefined) await write(io.stdout, `${escapeControlCharsInJson(out)}\n`);
  }
  if (unwritable > 0) {
    await write(io.stderr, `tracehook view: --json left out ${unwritable} line${unwritable === 1 ? '' : 's'} mixing traces shown and not shown that nest too deep to rebuild\n`);
  }
}

/**
 * Trees of the selected traces in their order, reading spans back a chunk of traces at a time;
 * with `criticalPath`, each with its self-time column and critical path summary.
 */
async function writeTrees(io: ViewIO, index: SpanIndex, selected: TraceSummary[], options: { paint: Paint; verbose: boolean; criticalPath: boolean }): Promise<void> {
  let first = true;
  for (const chunk of chunksOfSpans(selected, TREE_CHUNK_SPANS)) {
    const loaded = await index.loadSpans(chunk.map((s) => s.traceId));
    for (const summary of chunk) {
      const spans = loaded.get(summary.traceId) ?? [];
      const [trace] = buildTraces(spans);
      if (!trace) continue;
      let text: string;
      if (options.criticalPath) {
        const path = traceCriticalPath(spans);
        text = renderTrace(trace, { ...options, annotate: criticalPathAnnotation(path) }) + renderCriticalSummary(spans, path, options.paint);
      } else text = renderTrace(trace, options);
      await write(io.stdout, `${first ? '' : '\n'}${text}`);
      first = false;
    }
  }
}

/** --compare: the two traces named, span by span. @returns the exit code */
async function writeComparison(io: ViewIO, index: SpanIndex, all: TraceSummary[], ids: [string, string], paint: Paint, fail: Fail): Promise<number> {
  const found = ids.map((id) => findTrace(all, id));
  for (const [i, f] of found.entries()) if (typeof f === 'string') return fail(`--compare: trace ${'AB'[i]}: ${f} (${plural(all.length, 'trace')} read)`);
  const [a, b] = found as TraceSummary[];
  const loaded = await index.loadSpans([a.traceId, b.traceId]);
  await write(io.stdout, renderComparison(a, b, compareDecoded(loaded.get(a.traceId) ?? [], loaded.get(b.traceId) ?? []), paint));
  return 0;
}

/** One line per trace, aligned: start (UTC), trace id, duration, spans, status, root (service), services. */
export function renderList(summaries: readonly TraceSummary[], paint: Paint = noPaint): string {
  const rows = summaries.map((s) => [
    new Date(s.startMs).toISOString().replace('T', ' '),
    s.traceId,
    `${formatMs(s.durationMs)} ms`,
    plural(s.spanCount, 'span'),
    s.errorCount ? `ERROR×${s.errorCount}` : 'OK',
    printable(`${s.root.hasParent ? '⋯ ' : ''}${rootLabel(s.root)} (${s.root.service})`),
    printable(s.services.join(', ')),
  ]);
  const widths = columnWidths(rows);
  const rightAligned = new Set([2]);
  return rows
    .map((row, r) => {
      const cells = row.map((cell, col) => (rightAligned.has(col) ? cell.padStart(widths[col]) : cell.padEnd(widths[col])));
      cells[0] = paintCell(paint, 'dim', cells[0]);
      cells[4] = paintCell(paint, summaries[r].errorCount ? 'red' : 'green', cells[4]);
      return cells.join('  ').trimEnd();
    })
    .join('\n')
    .concat('\n');
}

function byStart(a: TraceSummary, b: TraceSummary): number {
  return a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : a.traceId < b.traceId ? -1 : 1;
}

function byDuration(a: TraceSummary, b: TraceSummary): number {
  return b.durationMs - a.durationMs || byStart(a, b);
}

function skippedNote(skipped: SkippedLine[], count: number): string {
  const shown = skipped.slice(0, 3).map((s) => `${s.file}:${s.line}${s.truncated ? ' (truncated last line)' : ''}: ${s.reason}`);
  if (count > shown.length) shown.push(`and ${count - shown.length} more`);
  return `tracehook view: skipped ${count} line${count === 1 ? '' : 's'} that ${count === 1 ? 'is' : 'are'} not valid OTLP/JSON:\n  ${shown.map((s) => printable(s)).join('\n  ')}\n`;
}

// Resolve once the text is handed to the OS, so a caller that exits right after loses nothing.
function write(stream: ViewIO['stdout'], text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}

function defaultIO(): ViewIO {
  // `tracehook view | head`: the reader went away; stop quietly, as other CLI tools do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
