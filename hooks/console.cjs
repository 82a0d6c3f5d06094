'use strict';
// A tracing startup hook that prints every span to stdout as it ends, for a quick look.
// Use: TRACEHOOK_STARTUP_HOOK=@tracehook/register/hooks/console:setupTracing (or just `console`).
const { ConsoleSpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerTracerProvider } = require('@tracehook/register/api');

/** Takes no arguments (Ray's contract); the preload flushes the provider at exit. */
exports.setupTracing = function setupTracing() {
  registerTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] });
};
