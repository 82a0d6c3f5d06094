/**
 * Keeps the spans of some traces in one span-file line (an OTLP/JSON `ExportTraceServiceRequest`),
 * so `tracehook view --json` can pass on the file format itself: a line whose spans all pass is
 * returned byte for byte; otherwise the request is rebuilt without the others (resources and
 * scopes left with no span are dropped).
 */
import { decodeId } from './decode';
import { arrayOrEmpty } from './raw-json';

/**
 * @param keep - called with each span's trace id (32 lowercase hex chars)
 * @returns the line, a smaller request as JSON text, or `undefined` when no span passes
 * @throws SyntaxError when the line is not JSON
 */
export function filterRequestLine(line: string, keep: (traceId: string) => boolean): string | undefined {
  const request = JSON.parse(line);
  let kept = 0;
  let dropped = 0;
  const resourceSpans = [];
  for (const rs of arrayOrEmpty(request?.resourceSpans)) {
    const scopeSpans = [];
    for (const ss of arrayOrEmpty(rs?.scopeSpans)) {
      const spans = arrayOrEmpty(ss?.spans).filter((span) => {
        const pass = keep(safeTraceId(span?.traceId));
        if (pass) kept++;
        else dropped++;
        return pass;
      });
      if (spans.length) scopeSpans.push({ ...ss, spans });
    }
    if (scopeSpans.length) resourceSpans.push({ ...rs, scopeSpans });
  }
  if (kept === 0) return undefined;
  return dropped === 0 ? line : JSON.stringify({ ...request, resourceSpans });
}

function safeTraceId(raw: unknown): string {
  try {
    return decodeId(raw, 16, 'traceId');
  } catch {
    return '';
  }
}
