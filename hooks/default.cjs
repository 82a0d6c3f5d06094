'use strict';
// The built-in default tracing startup hook: `TRACEHOOK_STARTUP_HOOK` unset, `default` or `file`.
// Spans go where the environment says: TRACEHOOK_EXPORTER_IMPORT_PATH, else OTEL_TRACES_EXPORTER
// (otlp, console, none), else span files under TRACEHOOK_SPANS_DIR (default /tmp/spans).
const { setupDefaultTracing } = require('@tracehook/register/api');

exports.setupTracing = setupDefaultTracing;
