'use strict';
// A tracing startup hook that sets up OpenTelemetry's own NodeSDK, as an OpenTelemetry user writes it, with
// getNodeAutoInstrumentations(). tracehook steps aside for what it registers: its context manager,
// propagator and every instrumentation NodeSDK brings (tracehook's own stay only where NodeSDK has none), so
// each request gives one SERVER span. The preload ends NodeSDK's spans still open at exit (marked
// tracehook.incomplete) and flushes its TracerProvider, within
// TRACEHOOK_SHUTDOWN_TIMEOUT_MS.
// Use: npm install @opentelemetry/sdk-node @opentelemetry/auto-instrumentations-node, then
//   TRACEHOOK_STARTUP_HOOK=@tracehook/register/hooks/node-sdk:setupTracing node --import @tracehook/register app.js
// Spans go over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else to span files: through tracehook's exporters,
// which survive process.exit() (NodeSDK's own OTLP exporter cannot send once the process is exiting).
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { getNodeAutoInstrumentations } = require('@opentelemetry/auto-instrumentations-node');
const { envDetector, osDetector, processDetector } = require('@opentelemetry/resources');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { FileSpanExporter, createOtlpSpanExporter } = require('@tracehook/register/api');

exports.setupTracing = function setupTracing() {
  const otlp = process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const exporter = otlp ? createOtlpSpanExporter() : new FileSpanExporter(process.env.TRACEHOOK_SPANS_DIR || '/tmp/spans');
  new NodeSDK({
    spanProcessors: [new BatchSpanProcessor(exporter)],
    instrumentations: [getNodeAutoInstrumentations()],
    // Synchronous, local detectors only: the cloud ones query metadata addresses at every start, and a resource
    // with attributes still pending (the host detector's machine id) holds every export until they arrive,
    // which at process.exit() is never.
    resourceDetectors: [envDetector, osDetector, processDetector],
  }).start();
};
