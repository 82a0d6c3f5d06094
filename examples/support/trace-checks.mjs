// The demo's pass/fail checks on traces read back from span files (see examples/demo.mjs).
// Traces are `Trace` objects from dist/span-file/tree.js; spans are its `DecodedSpan` records.

const SERVICES = ['front', 'grpc-service', 'downstream'];

/**
 * Finds a trace that crosses the front, the gRPC service and the downstream service with correct
 * parent links: every SERVER span but a root has a CLIENT parent in another process, every CLIENT
 * span of a service descends from that service's SERVER span, and no span lost its parent.
 * @returns `{ ok, line }`, `line` being the one-line verdict to print.
 */
export function checkCrossProcessTrace(traces) {
  const problems = [];
  for (const trace of traces) {
    if (!SERVICES.every((s) => trace.services.includes(s))) continue;
    const why = linkProblems(trace);
    if (why.length === 0) {
      const links = crossProcessLinks(trace).join(', ');
      return { ok: true, line: `OK: trace ${trace.traceId} crosses ${trace.processes.length} processes with correct parent links: ${links}` };
    }
    problems.push(`${trace.traceId}: ${why[0]}`);
  }
  const detail = problems.length ? `; closest: ${problems[0]}` : `; no trace holds spans of all of ${SERVICES.join(', ')}`;
  return { ok: false, line: `FAIL: no trace crosses ${SERVICES.join(', ')} with correct parent links${detail}` };
}

/**
 * Checks that each request the client sent with a made-up upstream `traceparent` was continued:
 * the front's SERVER span has that trace id, that parent span id and the `tracestate` sent.
 * @param requests - the client's `origin=upstream` request lines, parsed (`trace`, `parent`, `tracestate`).
 */
export function checkUpstreamContinued(traces, requests) {
  if (requests.length === 0) return { ok: false, line: 'FAIL: the client sent no request with an upstream traceparent' };
  const failures = [];
  for (const req of requests) {
    const trace = traces.find((t) => t.traceId === req.trace);
    const server = trace?.spans.map((n) => n.span).find((s) => s.kind === 'SERVER' && s.resource['service.name'] === 'front');
    if (!server) failures.push(`trace ${req.trace}: no front SERVER span`);
    else if (server.parentSpanId !== req.parent) failures.push(`trace ${req.trace}: parent ${server.parentSpanId}, sent ${req.parent}`);
    else if (server.traceState !== req.tracestate) failures.push(`trace ${req.trace}: tracestate ${server.traceState}, sent ${req.tracestate}`);
  }
  const n = requests.length;
  return failures.length === 0
    ? { ok: true, line: `OK: ${n} of ${n} upstream traceparents continued (trace id, parent span id and tracestate kept)` }
    : { ok: false, line: `FAIL: ${failures.length} of ${n} upstream traceparents not continued: ${failures.join('; ')}` };
}

/** Parses the client's lines `request 2 item=pen status=200 trace=... origin=upstream parent=... tracestate=...`. */
export function parseClientLines(lines) {
  return lines
    .filter((line) => /^request \d+ /.test(line))
    .map((line) =>
      Object.fromEntries(
        line
          .split(' ')
          .slice(2)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ),
    );
}

function linkProblems(trace) {
  const byId = new Map(trace.spans.map((n) => [n.span.spanId, n]));
  const problems = [];
  for (const node of trace.spans) {
    const { span } = node;
    const where = `${span.kind} ${span.name} in ${span.resource['service.name']}`;
    if (node.missingParentSpanId) {
      problems.push(`${where} has parent ${node.missingParentSpanId}, which no span file holds`);
      continue;
    }
    const parent = span.parentSpanId ? byId.get(span.parentSpanId)?.span : undefined;
    if (span.kind === 'SERVER' && parent && (parent.kind !== 'CLIENT' || sameProcess(parent, span))) {
      problems.push(`${where} has parent ${parent.kind} ${parent.name} in ${parent.resource['service.name']}, not a CLIENT span of another process`);
    }
    if (span.kind === 'CLIENT' && span.resource['service.name'] !== 'client' && !hasServerAncestor(span, byId)) {
      problems.push(`${where} does not descend from a SERVER span of its own process`);
    }
  }
  return problems;
}

// "client[12] → front[34]" for each CLIENT span whose child SERVER span is in another process.
function crossProcessLinks(trace) {
  const links = [];
  for (const node of trace.spans) {
    for (const child of node.children) {
      if (!sameProcess(node.span, child.span)) links.push(`${processLabel(node.span)} → ${processLabel(child.span)}`);
    }
  }
  return [...new Set(links)];
}

function processLabel(span) {
  return `${span.resource['service.name']}[${span.resource['process.pid']}]`;
}

function hasServerAncestor(span, byId) {
  for (let p = byId.get(span.parentSpanId)?.span; p; p = byId.get(p.parentSpanId)?.span) {
    if (!sameProcess(p, span)) return false;
    if (p.kind === 'SERVER') return true;
  }
  return false;
}

function sameProcess(a, b) {
  return a.file === b.file && a.resource['process.pid'] === b.resource['process.pid'];
}
