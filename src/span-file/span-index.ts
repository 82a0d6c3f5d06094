/**
 * An index of span files that keeps one summary per trace and where its spans are (file, byte
 * offset, length of each line that holds some), never the spans themselves: listing a directory of
 * any size costs memory per trace, and the spans of a trace are read again on demand. It follows
 * files as they grow: {@link SpanIndex.refresh} reads only what was appended since the last call.
 */
import type { FileHandle } from 'node:fs/promises';
import { decodeSpanLine, skipReason } from './decode';
import { readLines, readLinesAt, tooLongReason } from './line-reader';
import { findAllSpanFiles, openSpanFile, skippedFileReason, type SpanFileOptions } from './span-files';
import { processLabel, requestTarget } from './span-label';
import type { FilterableTrace } from './trace-filter';
import type { DecodedSpan, SkippedLine } from './types';

/** Everything known about a trace without holding its spans. */
export interface TraceSummary extends FilterableTrace {
  /** Earliest span start, nanoseconds since the Unix epoch. */
  startTimeUnixNano: bigint;
  /** Latest span end, nanoseconds since the Unix epoch. */
  endTimeUnixNano: bigint;
  spanCount: number;
  /** Distinct processes as `service[pid]` / `service[pid:tN]`, in order of first appearance. */
  processes: string[];
  /**
   * The earliest span without a parent, else the earliest span (its parent is upstream); `target`:
   * its route or URL path (see {@link requestTarget}), when it has one.
   */
  root: { name: string; service: string; spanId: string; hasParent: boolean; target?: string };
  /** PRODUCER and CONSUMER spans: hand-offs into workers, child processes and pools. */
  messagingCount: number;
  /** Links on the trace's spans. */
  linkCount: number;
}

/** A link from a span of another trace to a span of this one. */
export interface IncomingLink {
  fromTraceId: string;
  fromSpanId: string;
  /** The span of this trace it points at. */
  toSpanId: string;
}

interface LineRef {
  file: number;
  offset: number;
  length: number;
}

interface TraceEntry {
  summary: TraceSummary;
  rootStart: bigint;
  lines: LineRef[];
  /** Sets beside the summary's lists once they grow long (most traces never need one). */
  sets?: Map<string[], Set<string>>;
}

interface FileState {
  path: string;
  offset: number;
  line: number;
  /** A last line without its newline yet, already too long: where it started and its bytes so far. */
  longLine?: { offset: number; length: number };
}

/** At most this many skipped lines are kept with their reason; the rest are only counted. */
const SKIPPED_KEPT = 20;

/** See the module comment. */
export class SpanIndex {
  /** Span files found so far, in the order first seen (sorted per refresh). */
  private readonly files: FileState[] = [];
  private readonly fileIds = new Map<string, number>();
  private readonly traces = new Map<string, TraceEntry>();
  private readonly incoming = new Map<string, IncomingLink[]>();
  /** One copy of each service, name and process label (they repeat across traces). */
  private readonly strings = new Map<string, string>();
  /** The first lines that were not valid OTLP/JSON (see {@link skippedCount} for all). */
  readonly skipped: SkippedLine[] = [];
  /** Lines skipped because they were not valid OTLP/JSON, or too long to read. */
  skippedCount = 0;
  /**
   * Files not read, by path, with a line saying why (a FIFO, a symlink, another user's, unreadable):
   * found at the last refresh. The other files are read all the same.
   */
  readonly skippedFiles = new Map<string, string>();
  /** Spans indexed. */
  spanCount = 0;

  /**
   * @param paths - span files and directories of them (searched 4 levels deep, see findAllSpanFiles)
   * @param options - which files are read (see {@link openSpanFile})
   */
  constructor(
    readonly paths: readonly string[],
    private readonly options: SpanFileOptions = {},
  ) {}

  /** The span files indexed, sorted. */
  get fileList(): string[] {
    return this.files.map((f) => f.path).sort();
  }

  /**
   * Reads what was appended to the span files since the last call (everything, the first time),
   * and picks up new files.
   * @param final - true: a last line without a newline is decoded if it can be, else skipped and
   *   counted as cut (a killed process). false (following live files): it is left for the next call.
   * A file or path that cannot be read safely is recorded in {@link skippedFiles}, never thrown; the
   * others are read.
   */
  async refresh({ final = false } = {}): Promise<void> {
    const { files, skipped } = await findAllSpanFiles(this.paths);
    this.skippedFiles.clear();
    for (const [file, reason] of skipped) this.skippedFiles.set(file, reason);
    for (const path of files) {
      let id = this.fileIds.get(path);
      if (id === undefined) {
        id = this.files.push({ path, offset: 0, line: 1 }) - 1;
        this.fileIds.set(path, id);
      }
      if ((await this.readFile(id, final)) === 'shrunk') {
        // Truncated or replaced: what we know of it is wrong, start again.
        this.reset();
        return this.refresh({ final });
      }
    }
  }

  /** Every trace's summary, in no particular order. */
  summaries(): TraceSummary[] {
    return [...this.traces.values()].map((e) => e.summary);
  }

  /** The summary of one trace, if indexed. */
  summary(traceId: string): TraceSummary | undefined {
    return this.traces.get(traceId)?.summary;
  }

  /** Links from spans of other traces to spans of `traceId` (e.g. a batch span's links to its callers). */
  incomingLinks(traceId: string): IncomingLink[] {
    return this.incoming.get(traceId) ?? [];
  }

  /**
   * Reads the spans of the given traces back from the files, each line once.
   * @returns spans per trace id, in file order; a trace not indexed is absent
   */
  async loadSpans(traceIds: Iterable<string>): Promise<Map<string, DecodedSpan[]>> {
    const wanted = new Set(traceIds);
    const out = new Map<string, DecodedSpan[]>();
    for await (const { text, file } of this.lines(wanted)) {
      let spans: DecodedSpan[];
      try {
        spans = decodeSpanLine(text, file);
      } catch {
        // A line rewritten since it was indexed (a file replaced in place) may no longer decode:
        // its spans are left out rather than end the view.
        continue;
      }
      for (const span of spans) {
        if (!wanted.has(span.traceId)) continue;
        const list = out.get(span.traceId);
        if (list) list.push(span);
        else out.set(span.traceId, [span]);
      }
    }
    return out;
  }

  /**
   * The lines (raw OTLP/JSON text) that hold spans of the given traces, each once, in file order.
   */
  async *lines(traceIds: ReadonlySet<string>): AsyncGenerator<{ text: string; file: string }> {
    const byFile = new Map<number, Map<number, LineRef>>();
    for (const id of traceIds) {
      for (const ref of this.traces.get(id)?.lines ?? []) {
        let refs = byFile.get(ref.file);
        if (!refs) byFile.set(ref.file, (refs = new Map()));
        refs.set(ref.offset, ref);
      }
    }
    for (const fileId of [...byFile.keys()].sort((a, b) => a - b)) {
      const refs = [...byFile.get(fileId)!.values()].sort((a, b) => a.offset - b.offset);
      const path = this.files[fileId].path;
      for (const text of await readLinesAt(path, refs, this.options)) yield { text, file: path };
    }
  }

  private reset(): void {
    this.files.length = 0;
    this.fileIds.clear();
    this.traces.clear();
    this.incoming.clear();
    this.strings.clear();
    this.skipped.length = 0;
    this.skippedCount = 0;
    this.skippedFiles.clear();
    this.spanCount = 0;
  }

  /**
   * Reads what was appended to a file since the last call, up to its size when opened.
   * @returns 'shrunk' when the file is now shorter than what was read of it
   */
  private async readFile(id: number, final: boolean): Promise<'shrunk' | undefined> {
    const state = this.files[id];
    let opened;
    try {
      opened = await openSpanFile(state.path, this.options);
    } catch (err) {
      // Removed since it was listed: nothing to read, as for a missing path.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.skippedFiles.set(state.path, skippedFileReason(state.path, err));
      return undefined;
    }
    try {
      if (opened.size < state.offset) return 'shrunk';
      await this.indexLines(state, opened.handle, opened.size, final, id);
    } catch (err) {
      this.skippedFiles.set(state.path, skippedFileReason(state.path, err));
    } finally {
      await opened.handle.close();
    }
    return undefined;
  }

  private async indexLines(state: FileState, handle: FileHandle, end: number, final: boolean, id: number): Promise<void> {
    for await (const line of readLines(handle, { start: state.offset, end, startLine: state.line, insideLongLine: state.longLine !== undefined })) {
      if (state.longLine) {
        // The rest of a too-long line read in part before: one line, from where it started.
        line.offset = state.longLine.offset;
        line.length += state.longLine.length;
        state.longLine = undefined;
      }
      if (line.unterminated && !final) {
        // Passed over once, not read again at every refresh while it grows.
        if (line.tooLong) {
          state.longLine = { offset: line.offset, length: line.length };
          state.offset = line.offset + line.length;
        }
        break;
      }
      state.offset = line.offset + line.length + (line.unterminated ? 0 : 1);
      state.line = line.line + 1;
      if (!line.tooLong && line.text.trim() === '') continue;
      let spans: DecodedSpan[];
      try {
        if (line.tooLong) throw new Error(tooLongReason(line.length));
        spans = decodeSpanLine(line.text, state.path, { skipAttributesAndEvents: true });
      } catch (err) {
        this.skippedCount++;
        const skipped = { file: state.path, line: line.line, reason: skipReason(err), truncated: line.unterminated };
        if (this.skipped.length < SKIPPED_KEPT) this.skipped.push(skipped);
        continue;
      }
      const ref: LineRef = { file: id, offset: line.offset, length: line.length };
      const seen = new Set<TraceEntry>();
      for (const span of spans) {
        const entry = this.add(span);
        if (!seen.has(entry)) {
          seen.add(entry);
          // Literal arrays are sized to fit; push() on an empty one reserves 16 slots.
          if (entry.lines.length === 0) entry.lines = [ref];
          else entry.lines.push(ref);
        }
      }
    }
  }

  private intern(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  private add(span: DecodedSpan): TraceEntry {
    this.spanCount++;
    const service = this.intern(String(span.resource['service.name'] ?? 'unknown_service'));
    const name = this.intern(span.name);
    let entry = this.traces.get(span.traceId);
    if (!entry) {
      const startMs = nanosToMs(span.startTimeUnixNano);
      entry = {
        summary: {
          traceId: span.traceId,
          startMs,
          durationMs: 0,
          services: [service],
          names: [name],
          errorCount: 0,
          startTimeUnixNano: span.startTimeUnixNano,
          endTimeUnixNano: span.endTimeUnixNano,
          spanCount: 0,
          processes: [this.intern(processLabel(span))],
          root: rootOf(span, name, service),
          messagingCount: 0,
          linkCount: 0,
        },
        rootStart: span.startTimeUnixNano,
        lines: [],
      };
      this.traces.set(span.traceId, entry);
    }
    const s = entry.summary;
    s.spanCount++;
    if (span.status.code === 'ERROR') s.errorCount++;
    if (span.kind === 'PRODUCER' || span.kind === 'CONSUMER') s.messagingCount++;
    s.linkCount += span.links.length;
    addDistinct(entry, s.services, service);
    addDistinct(entry, s.names, name);
    addDistinct(entry, s.processes, this.intern(processLabel(span)));
    if (span.startTimeUnixNano < s.startTimeUnixNano) s.startTimeUnixNano = span.startTimeUnixNano;
    if (span.endTimeUnixNano > s.endTimeUnixNano) s.endTimeUnixNano = span.endTimeUnixNano;
    s.startMs = nanosToMs(s.startTimeUnixNano);
    s.durationMs = Number(s.endTimeUnixNano - s.startTimeUnixNano) / 1e6;
    // A span without a parent beats one with; among equals, the earliest wins.
    const hasParent = span.parentSpanId !== undefined;
    if ((s.root.hasParent && !hasParent) || (s.root.hasParent === hasParent && span.startTimeUnixNano < entry.rootStart)) {
      s.root = rootOf(span, name, service);
      entry.rootStart = span.startTimeUnixNano;
    }
    for (const link of span.links) {
      if (link.traceId === span.traceId) continue;
      const list = this.incoming.get(link.traceId);
      const item = { fromTraceId: span.traceId, fromSpanId: span.spanId, toSpanId: link.spanId };
      if (list) list.push(item);
      else this.incoming.set(link.traceId, [item]);
    }
    return entry;
  }
}

function rootOf(span: DecodedSpan, name: string, service: string): TraceSummary['root'] {
  const target = requestTarget(span.attributes);
  return { name, service, spanId: span.spanId, hasParent: span.parentSpanId !== undefined, ...(target === undefined ? {} : { target }) };
}

// A short list is searched; a long one gets a Set, so a trace of many distinct names stays linear.
function addDistinct(entry: TraceEntry, list: string[], value: string): void {
  if (list.length < 16) {
    if (!list.includes(value)) list.push(value);
    return;
  }
  let set = entry.sets?.get(list);
  if (!set) (entry.sets ??= new Map()).set(list, (set = new Set(list)));
  if (set.has(value)) return;
  set.add(value);
  list.push(value);
}

/** Nanoseconds since the epoch as fractional milliseconds (µs precision survives a double). */
export function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1000n) / 1000;
}
