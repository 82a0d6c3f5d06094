/**
 * Short human labels for a span: which process wrote it, and what an HTTP or gRPC span did.
 * Both the old (`http.method`, `http.status_code`) and the stable (`http.request.method`,
 * `http.response.status_code`) semantic conventions are read, since instrumentation-http writes
 * either depending on `OTEL_SEMCONV_STABILITY_OPT_IN`.
 */
import { basename } from 'node:path';
import type { DecodedSpan } from './types';

/**
 * The process that wrote a span, as `service[pid]`, or `service[pid:tN]` for worker thread N.
 * The pid comes from the resource's `process.pid`, else from a `<pid>.jsonl` file name.
 */
export function processLabel(span: DecodedSpan): string {
  const service = String(span.resource['service.name'] ?? 'unknown_service');
  const pid = span.resource['process.pid'] ?? /^(\d+)\.jsonl$/.exec(basename(span.file))?.[1];
  const thread = span.resource['thread.id'] ?? span.resource['process.thread.id'];
  const threadPart = thread !== undefined && Number(thread) !== 0 ? `:t${thread}` : '';
  return pid === undefined ? service : `${service}[${pid}${threadPart}]`;
}

/**
 * What an HTTP or gRPC span did, e.g. `GET /order?item=book → 200`,
 * `GET http://127.0.0.1:4001/stock → 200`, `grpc status 0`; `''` for other spans.
 */
export function spanDetail(span: DecodedSpan): string {
  const a = span.attributes;
  if (a['rpc.system'] === 'grpc') {
    const code = a['rpc.grpc.status_code'];
    return code === undefined ? 'grpc' : `grpc status ${code}`;
  }
  const method = a['http.request.method'] ?? a['http.method'];
  if (method === undefined) return '';
  const target =
    span.kind === 'CLIENT' ? (a['url.full'] ?? a['http.url']) : (a['http.target'] ?? (a['url.path'] === undefined ? undefined : `${a['url.path']}${a['url.query'] ? `?${a['url.query']}` : ''}`));
  const status = a['http.response.status_code'] ?? a['http.status_code'];
  return [method, target, status === undefined ? undefined : `→ ${status}`].filter((p) => p !== undefined).join(' ');
}

/**
 * The request a span served, as a trace list names it: `http.route` (`/users/:id`), else the URL
 * path (`url.path`, the old `http.target`, or the path of a client's `url.full` / `http.url`), its
 * query left out; `undefined` when it has none.
 */
export function requestTarget(attributes: DecodedSpan['attributes']): string | undefined {
  const route = attributes['http.route'];
  if (typeof route === 'string' && route !== '') return route;
  let path = attributes['url.path'] ?? attributes['http.target'];
  if (typeof path !== 'string') {
    const full = attributes['url.full'] ?? attributes['http.url'];
    path = typeof full === 'string' ? /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^#]*)/i.exec(full)?.[1] : undefined;
  }
  if (typeof path !== 'string' || path === '') return undefined;
  const query = path.indexOf('?');
  return query < 0 ? path : path.slice(0, query) || undefined;
}

/**
 * A trace's root as one line of a list: its name, with the request target added when the name does
 * not already hold it (`GET /fork` for a plain node:http span named `GET`).
 */
export function rootLabel(root: { name: string; target?: string }): string {
  return root.target !== undefined && !root.name.includes(root.target) ? `${root.name} ${root.target}` : root.name;
}

/** Milliseconds for display: two decimals under 1 ms, one decimal above. */
export function formatMs(ms: number): string {
  return ms < 1 ? ms.toFixed(2) : ms.toFixed(1);
}

/**
 * An attribute value as text: strings JSON-quoted, bigints as decimal strings, bytes as `base64:…`, arrays
 * and maps as JSON with those rules inside.
 */
export function formatValue(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v) => {
      if (typeof v === 'bigint') return v.toString();
      if (v instanceof Uint8Array) return `base64:${Buffer.from(v).toString('base64')}`;
      return v === undefined ? null : v;
    }) ?? 'null'
  );
}
