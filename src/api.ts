/**
 * `@tracehook/register/api`: the public API. Every export works whether or not the preload is
 * active; without it the calls are harmless no-ops or pass-throughs.
 */

// Startup hooks and providers: what a tracing startup hook (TRACEHOOK_STARTUP_HOOK) builds with.
export { registerTracerProvider } from './provider/tracer-provider.js';
export type { TracerProviderOptions } from './provider/tracer-provider.js';
export { setupDefaultTracing } from './hooks/default-hook.js';
export { FileSpanExporter } from './exporters/file-span-exporter.js';
export { createOtlpSpanExporter } from './exporters/otlp-span-exporter.js';
export { ConfigError } from './config/config-error.js';
