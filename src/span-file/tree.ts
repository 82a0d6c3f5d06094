/**
 * Groups decoded spans into traces and orders each trace parent-first, as `tracehook view`, the
 * demo and the tests read them. Everything here is deterministic: the same spans, in any order,
 * give the same traces and the same text.
 */
import { escapeControlChars as printable } from '../diag/control-chars';
import type { DecodedSpan } from './types';
import { noPaint, paintCell, serviceStyle, type Paint, type Style } from './paint';
import { formatMs, formatValue, processLabel, spanDetail } from './span-label';

/**
 * Tree levels {@link renderTrace} indents; deeper spans are drawn at this indentation, each noted
 * with its depth, so a parent chain thousands deep costs no more per line than this.
 */
export const MAX_DRAWN_DEPTH = 64;

/** The most a column is padded to (see {@link columnWidths}). */
export const MAX_COLUMN_PAD = 160;

/** How {@link renderTrace} draws. */
export interface RenderOptions {
  /** Colours (default none). */
  paint?: Paint;
  /** Under each span: its attributes, events (exception messages included) and links. */
  verbose?: boolean;
  /** A column after the duration: `note` per span, painted as marked (e.g. on the critical path) or dim. */
  annotate?: (span: DecodedSpan) => { note: string; marked: boolean };
}

/** A span in its trace's tree. */
export interface SpanNode {
  span: DecodedSpan;
  /** 0 for a root (or an orphan shown at root), 1 for its children, and so on. */
  depth: number;
  /** Children sorted by start time, then span id. */
  children: SpanNode[];
  /**
   * Set on a span shown at root although it has a parent: the parent's span id, which none of the
   * spans read belongs to (an upstream caller outside tracing, a process whose file is missing,
   * or a span not yet ended when the file was read).
   */
  missingParentSpanId?: string;
}

/** One trace: every span read that has this trace id. */
export interface Trace {
  /** 32 lowercase hex chars. */
  traceId: string;
  /** Roots and orphans, sorted by start time, then span id. */
  roots: SpanNode[];
  /** Every span of the trace, parent-first (depth-first pre-order of {@link roots}). */
  spans: SpanNode[];
  /** Earliest span start, nanoseconds since the Unix epoch. */
  startTimeUnixNano: bigint;
  /** Latest span end, nanoseconds since the Unix epoch. */
  endTimeUnixNano: bigint;
  /** From the earliest start to the latest end, in milliseconds. */
  durationMs: number;
  /** Distinct `service.name` values in parent-first order of first appearance. */
  services: string[];
  /** Distinct processes (service and pid) in parent-first order of first appearance, e.g. `front[4099]`. */
  processes: string[];
}

/**
 * Groups spans by trace id and builds each trace's tree. Spans whose parent is not among `spans`
 * become roots marked with {@link SpanNode.missingParentSpanId}. Traces are sorted by start time,
 * then trace id.
 */
export function buildTraces(spans: readonly DecodedSpan[]): Trace[] {
  const byTrace = new Map<string, DecodedSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  const traces = [...byTrace.entries()].map(([traceId, list]) => buildTrace(traceId, list));
  return traces.sort((a, b) => compareBigint(a.startTimeUnixNano, b.startTimeUnixNano) || compareText(a.traceId, b.traceId));
}

/**
 * Orders spans parent-first: each trace (in {@link buildTraces} order) depth-first, children by
 * start time. Handy in tests: `sortParentFirst(spans)[0]` is the earliest root.
 */
export function sortParentFirst(spans: readonly DecodedSpan[]): DecodedSpan[] {
  return buildTraces(spans).flatMap((t) => t.spans.map((n) => n.span));
}

/**
 * Renders one trace as text: a header line, then one line per span, parent-first, indented by
 * tree depth. A span line holds its start offset from the trace start, name, kind, duration,
 * status, process (`service[pid]`) and a short HTTP/gRPC detail; orphans start with `⋯` and end
 * with the parent id that was not found. Ends with a newline.
 */
export function renderTrace(trace: Trace, options: RenderOptions = {}): string {
  const paint = options.paint ?? noPaint;
  const rows: string[][] = [];
  // What the tree draws left of a span's details: its own lead, continued below it.
  const detailLeads: string[] = [];
  // `lead` is what the ancestors draw: a bar where an ancestor has later siblings, blank otherwise.
  // A stack, not recursion: a parent chain can be thousands deep. Past MAX_DRAWN_DEPTH the lead
  // stops growing, so a line's length (and the output) stays linear in the spans.
  const stack: { node: SpanNode; lead: string; last: boolean }[] = trace.roots.map((node) => ({ node, lead: '', last: true })).reverse();
  while (stack.length > 0) {
    const { node, lead, last } = stack.pop()!;
    const branch = node.depth === 0 ? (node.missingParentSpanId ? '⋯ ' : '') : last ? '└─ ' : '├─ ';
    const row = spanRow(trace, node, lead + branch);
    if (options.annotate) row.splice(ANNOTATION_COLUMN, 0, options.annotate(node.span).note);
    rows.push(row);
    // Children of a root hang under its name, which the orphan marker pushes right by two.
    const childLead = node.depth === 0 ? branch.replace(/./g, ' ') : node.depth >= MAX_DRAWN_DEPTH ? lead : lead + (last ? '   ' : '│  ');
    detailLeads.push(childLead + (node.children.length ? '│ ' : '  '));
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], lead: childLead, last: i === node.children.length - 1 });
  }
  const widths = columnWidths(rows);
  const rightAligned = new Set([0, 3]);
  const lines: string[] = [];
  rows.forEach((row, i) => {
    const cells = row.map((cell, col) => (rightAligned.has(col) ? cell.padStart(widths[col]) : cell.padEnd(widths[col])));
    lines.push(paintRow(cells, trace, trace.spans[i].span, paint, options.annotate).join('  ').trimEnd());
    if (options.verbose) {
      const indent = `${' '.repeat(widths[0] + 2)}${detailLeads[i]}`;
      for (const detail of spanDetails(trace, trace.spans[i].span, paint)) lines.push(`${indent}${detail}`);
    }
  });
  return `${paint('bold', traceHeader(trace))}\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/**
 * The width to pad each column of `rows` to: its widest cell, but at most {@link MAX_COLUMN_PAD}
 * (a longer cell overflows), so one long span name cannot pad every line of a big trace.
 */
export function columnWidths(rows: readonly string[][]): number[] {
  return rows[0].map((_, col) => rows.reduce((max, r) => Math.max(max, Math.min(r[col].length, MAX_COLUMN_PAD)), 0));
}

/** Renders several traces with {@link renderTrace}, separated by a blank line. */
export function renderTraces(traces: readonly Trace[], options: RenderOptions = {}): string {
  return traces.map((t) => renderTrace(t, options)).join('\n');
}

/** Where {@link RenderOptions.annotate} puts its column: after the duration. */
const ANNOTATION_COLUMN = 4;

// Cells: offset, tree + name, kind, duration, [annotation,] status, process, detail (padded already).
function paintRow(cells: string[], trace: Trace, span: DecodedSpan, paint: Paint, annotate: RenderOptions['annotate']): string[] {
  if (paint === noPaint) return cells;
  const service = String(span.resource['service.name'] ?? 'unknown_service');
  const status: Style = span.status.code === 'ERROR' ? 'red' : span.status.code === 'OK' ? 'green' : 'dim';
  const styles: (Style | undefined)[] = ['dim', undefined, 'dim', undefined, status, serviceStyle(trace.services.indexOf(service)), 'dim'];
  if (annotate) styles.splice(ANNOTATION_COLUMN, 0, annotate(span).marked ? 'yellow' : 'dim');
  return cells.map((cell, i) => (styles[i] ? paintCell(paint, styles[i], cell) : cell));
}

/** The verbose lines under a span: attributes, events, links; control characters escaped. */
function spanDetails(trace: Trace, span: DecodedSpan, paint: Paint): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(span.attributes)) out.push(`${paint('dim', printable(key))} = ${printable(formatValue(value))}`);
  for (const event of span.events) {
    const at = Number(event.timeUnixNano - trace.startTimeUnixNano) / 1e6;
    const attrs = Object.entries(event.attributes).map(([k, v]) => `${k}=${formatValue(v)}`);
    const line = printable(`event +${at.toFixed(1)} ms ${event.name}${attrs.length ? `  ${attrs.join('  ')}` : ''}`);
    out.push(event.name === 'exception' ? paint('red', line) : line);
  }
  for (const link of span.links) {
    const attrs = Object.entries(link.attributes).map(([k, v]) => `${k}=${formatValue(v)}`);
    const where = link.traceId === trace.traceId ? `span ${link.spanId} (this trace)` : `trace ${link.traceId} span ${link.spanId}`;
    out.push(printable(`link → ${where}${attrs.length ? `  ${attrs.join('  ')}` : ''}`));
  }
  return out;
}

function buildTrace(traceId: string, spans: DecodedSpan[]): Trace {
  const nodes = spans.map((span): SpanNode => ({ span, depth: 0, children: [] }));
  const byId = new Map<string, SpanNode>();
  for (const node of nodes) if (!byId.has(node.span.spanId)) byId.set(node.span.spanId, node);

  const roots: SpanNode[] = [];
  for (const node of nodes) {
    const parentId = node.span.parentSpanId;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    if (parent && parent !== node) {
      parent.children.push(node);
    } else {
      if (parentId !== undefined) node.missingParentSpanId = parentId;
      roots.push(node);
    }
  }
  const order: SpanNode[] = [];
  // Depth-first pre-order with a stack, not recursion: a parent chain can be thousands deep.
  const visit = (root: SpanNode): void => {
    const stack = [root];
    root.depth = 0;
    while (stack.length > 0) {
      const node = stack.pop()!;
      order.push(node);
      node.children.sort(compareNodes);
      for (let i = node.children.length - 1; i >= 0; i--) {
        node.children[i].depth = node.depth + 1;
        stack.push(node.children[i]);
      }
    }
  };
  roots.sort(compareNodes);
  for (const root of roots) visit(root);
  // Spans in a parent cycle are reachable from no root (only corrupt files do this); show them at
  // root rather than lose them.
  const reached = new Set(order);
  for (const node of nodes.filter((n) => !reached.has(n)).sort(compareNodes)) {
    if (reached.has(node)) continue;
    // Cut the cycle at its earliest span so the walk below ends.
    const parent = byId.get(node.span.parentSpanId ?? '');
    if (parent) parent.children = parent.children.filter((c) => c !== node);
    node.missingParentSpanId = node.span.parentSpanId;
    roots.push(node);
    const before = order.length;
    visit(node);
    for (const n of order.slice(before)) reached.add(n);
  }

  let start = spans[0].startTimeUnixNano;
  let end = spans[0].endTimeUnixNano;
  for (const s of spans) {
    if (s.startTimeUnixNano < start) start = s.startTimeUnixNano;
    if (s.endTimeUnixNano > end) end = s.endTimeUnixNano;
  }
  const services = unique(order.map((n) => String(n.span.resource['service.name'] ?? 'unknown_service')));
  const processes = unique(order.map((n) => processLabel(n.span)));
  return {
    traceId,
    roots,
    spans: order,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    durationMs: Number(end - start) / 1e6,
    services,
    processes,
  };
}

function traceHeader(trace: Trace): string {
  const n = trace.spans.length;
  const parts = [
    `trace ${trace.traceId}`,
    `${n} span${n === 1 ? '' : 's'}`,
    `${trace.processes.length} process${trace.processes.length === 1 ? '' : 'es'} (${trace.services.join(', ')})`,
    `${formatMs(trace.durationMs)} ms`,
  ];
  const deepest = trace.spans.reduce((max, node) => Math.max(max, node.depth), 0);
  if (deepest > MAX_DRAWN_DEPTH) parts.push(`${deepest + 1} levels deep: drawn flat below level ${MAX_DRAWN_DEPTH}`);
  const traceState = trace.spans.find((node) => node.span.traceState)?.span.traceState;
  if (traceState) parts.push(`tracestate ${traceState}`);
  return printable(parts.join('  '));
}

// Columns: offset, tree + name, kind, duration, status, process, detail; control characters escaped.
function spanRow(trace: Trace, node: SpanNode, prefix: string): string[] {
  const { span } = node;
  const offsetMs = Number(span.startTimeUnixNano - trace.startTimeUnixNano) / 1e6;
  const notes = [spanDetail(span)];
  notes.push(statusNote(span));
  if (node.missingParentSpanId) notes.push(`(parent ${node.missingParentSpanId} not in span files)`);
  if (node.depth > MAX_DRAWN_DEPTH) notes.push(`(depth ${node.depth})`);
  return [
    `+${offsetMs.toFixed(1)} ms`,
    prefix + printable(span.name),
    span.kind,
    `${formatMs(span.durationMs)} ms`,
    span.status.code,
    printable(processLabel(span)),
    printable(notes.filter(Boolean).join('  ')),
  ];
}

/**
 * The status message, quoted; on an ERROR span led by the type of its first `exception` event, whose message stands
 * in when the status has none (`TypeError "boom: user 42 missing"`).
 */
function statusNote(span: DecodedSpan): string {
  const message = span.status.message;
  const exception = span.status.code === 'ERROR' ? span.events.find((e) => e.name === 'exception')?.attributes : undefined;
  const text = message || exception?.['exception.message'];
  const type = exception?.['exception.type'];
  return [typeof type === 'string' ? type : '', typeof text === 'string' && text ? JSON.stringify(text) : ''].filter(Boolean).join(' ');
}

function compareNodes(a: SpanNode, b: SpanNode): number {
  return compareBigint(a.span.startTimeUnixNano, b.span.startTimeUnixNano) || compareText(a.span.spanId, b.span.spanId);
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
