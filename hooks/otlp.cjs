'use strict';
// A tracing startup hook that sends spans over OTLP to a Collector, Jaeger, Tempo or a vendor.
// Protocol from OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, http/json, grpc); endpoint, headers and
// timeout from the standard OTEL_EXPORTER_OTLP_* variables.
// Use: TRACEHOOK_STARTUP_HOOK=@tracehook/register/hooks/otlp:setupTracing (or just `otlp`).
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { createOtlpSpanExporter, registerTracerProvider } = require('@tracehook/register/api');

exports.setupTracing = function setupTracing() {
  registerTracerProvider({ spanProcessors: [new BatchSpanProcessor(createOtlpSpanExporter())] });
};
