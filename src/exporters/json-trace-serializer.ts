import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

type Serializer = (typeof import('@opentelemetry/otlp-transformer'))['JsonTraceSerializer'];
let serializer: Serializer | undefined;

/**
 * otlp-transformer's JsonTraceSerializer (OTLP/JSON with hex ids), loaded at its first use rather
 * than at startup: from the build's small bundle of it (dist/otlp-json.bundle.js, ≈ 3 ms) when
 * present, else from the package (≈ 100 ms: it brings protobuf, metrics and logs along).
 */
export function jsonTraceSerializer(): Serializer {
  if (serializer) return serializer;
  try {
    serializer = (require(join(packageRoot(), 'dist', 'otlp-json.bundle.js')) as { JsonTraceSerializer: Serializer }).JsonTraceSerializer;
  } catch {
    serializer = (require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer')).JsonTraceSerializer;
  }
  return serializer;
}
