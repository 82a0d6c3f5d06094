import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/** An exporter the default hook builds; `file` is tracehook's span files. */
export type TracesExporterName = 'file' | 'otlp' | 'console';
const NAMES: readonly string[] = ['file', 'otlp', 'console', 'none'];

/**
 * `OTEL_TRACES_EXPORTER` as the specification has it, a comma-separated list (`console,otlp`: both),
 * `none` for no exporter. Unset: `otlp` when an OTLP endpoint is set, else span files. Unknown names
 * are left out with one error line; when none is left, span files.
 * @returns the exporters in order, without duplicates; empty for `none`
 * @see OpenTelemetry specification, "Environment Variable Specification", Exporter selection
 */
export function readTracesExporters(env: Env, otlpEndpointSet: boolean, errors: ConfigError[]): TracesExporterName[] {
  const raw = readString(env, 'OTEL_TRACES_EXPORTER');
  if (raw === undefined) return [otlpEndpointSet ? 'otlp' : 'file'];
  const names = [
    ...new Set(
      raw
        .toLowerCase()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((n) => !NAMES.includes(n));
  const known = names.filter((n): n is TracesExporterName => NAMES.includes(n) && n !== 'none');
  if (unknown.length > 0) {
    const fallback = known.length > 0 || names.includes('none') ? `ignoring ${unknown.join(', ')}` : 'using span files';
    errors.push(fallbackError('OTEL_TRACES_EXPORTER', raw, `a list of \`otlp\`, \`console\`, \`file\`, or \`none\`; ${fallback}`));
    if (known.length === 0 && !names.includes('none')) return ['file'];
  }
  return known;
}
