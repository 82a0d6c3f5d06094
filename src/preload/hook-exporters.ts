import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { finishedSpansOf, spanProcessorExporterOf } from '../compat/otel-sdk.js';
import { getConfig } from '../config/current.js';
import { logWarn } from '../diag/logger.js';
import { tracingStats } from '../diag/tracing-stats.js';
import { wrap } from '../patch/wrap.js';
import { spanProcessorsOf } from './unref-timers.js';

interface Watched {
  /** A span processor of the SDK's (BatchSpanProcessor, SimpleSpanProcessor). */
  processor: unknown;
  exporter: SpanExporter;
  /** Spans handed to the exporter whose export has not called back. */
  pending: number;
  /** Spans handed to the exporter so far. */
  handed: number;
}

const SITE = { component: 'exit', id: 'hook-exporters.SpanExporter#export', otherwise: "spans a startup hook's own exporter cannot send at process.exit() are lost without a line" };
const watched: Watched[] = [];
let before: { queued: number; handed: number; resourcePending: boolean } | undefined;

/**
 * Counts, for each span processor of a startup hook's own making that has an `_exporter` (the SDK's
 * BatchSpanProcessor and SimpleSpanProcessor), the spans its exporter was handed and has not
 * called back for: `export` of that exporter instance is wrapped (site
 * `hook-exporters.SpanExporter#export`). tracehook's own span processors keep their exporter
 * elsewhere and are not touched. At the exit steps this tells which spans such an exporter could
 * not finish ({@link reportHookLosses}).
 */
export function watchHookExporters(provider: unknown): void {
  for (const p of spanProcessorsOf(provider)) {
    const exporter = spanProcessorExporterOf<SpanExporter>(p);
    if (exporter === undefined) continue;
    const entry: Watched = { processor: p, exporter, pending: 0, handed: 0 };
    const wrapped = wrap(
      exporter as unknown as Record<string, (...args: unknown[]) => unknown>,
      'export',
      SITE,
      (original) =>
        function (this: unknown, spans: unknown, resultCallback: unknown) {
          const n = Array.isArray(spans) ? spans.length : 0;
          entry.handed += n;
          entry.pending += n;
          let called = false;
          const settle = () => {
            if (called) return;
            called = true;
            entry.pending -= n;
          };
          try {
            return Reflect.apply(original, this, [
              spans,
              (result: ExportResult) => {
                settle();
                (resultCallback as (r: ExportResult) => void)(result);
              },
            ]);
          } catch (err) {
            settle();
            throw err;
          }
        },
    );
    if (wrapped) watched.push(entry);
  }
}

/** Notes what the hook's span processors hold before the exit flush; the exit step that exports calls it first. */
export function noteHookQueues(): void {
  let queued = 0;
  let handed = 0;
  let resourcePending = false;
  for (const w of watched) {
    const spans = finishedSpansOf<ReadableSpan>(w.processor) ?? [];
    queued += spans.length;
    handed += w.handed;
    resourcePending ||= spans.some((s) => (s.resource as { asyncAttributesPending?: boolean } | undefined)?.asyncAttributesPending === true);
  }
  before = { queued, handed, resourcePending };
}

/**
 * After the exit flush: the spans a startup hook's own span processors still hold (handed to an
 * exporter that has not called back, or still waiting for resource attributes) cannot be sent any
 * more, since no later turn of the event loop comes. One line says how many and why, and they are
 * counted in `getTracingStats().hookUnflushed`. Nothing when none are left.
 */
export function reportHookLosses(): void {
  if (watched.length === 0 || !before) return;
  let pending = 0;
  let handed = 0;
  let asyncExporter: string | undefined;
  for (const w of watched) {
    pending += w.pending;
    handed += w.handed;
    if (w.pending > 0) asyncExporter ??= w.exporter.constructor?.name || 'its exporter';
  }
  const neverHanded = Math.max(0, before.queued - (handed - before.handed));
  const lost = pending + neverHanded;
  if (lost === 0) return;
  tracingStats().hookUnflushed += lost;
  const why = [
    asyncExporter && `its exporter (${asyncExporter}) is asynchronous, and the process ending leaves no turn of the event loop for it to finish`,
    neverHanded > 0 &&
      (before.resourcePending
        ? "they wait for resource attributes still pending (a resource detector that has not answered, such as the host detector's machine id)"
        : 'they were not handed to an exporter'),
  ].filter(Boolean);
  const config = getConfig();
  const hook = config.startupHook ? `TRACEHOOK_STARTUP_HOOK=${config.startupHook}` : `TRACEHOOK_EXPORTER_IMPORT_PATH=${config.exporterImportPath ?? ''}`;
  logWarn(
    'exit',
    `${lost} span${lost === 1 ? '' : 's'} of the startup hook's own span processors (${hook}) may be lost: ${why.join('; ')}. ` +
      'createOtlpSpanExporter() and FileSpanExporter from @tracehook/register/api finish at exit, process.exit() included',
  );
}
