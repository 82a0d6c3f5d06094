import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ConfigError } from '../config/config-error.js';

type InstrumentationClass = new (config?: Record<string, unknown>) => Instrumentation;

/**
 * Creates the instrumentations named in `names` (the names auto-instrumentations-node uses:
 * `http`, `grpc`, `express`, `pg`, …, i.e. `@opentelemetry/instrumentation-<name>`). Each package
 * is required only when named, so an instrumentation that is not enabled costs nothing.
 * @returns the instances (not yet enabled) and one ConfigError per name that could not be loaded
 */
export function loadInstrumentations(names: readonly string[]): { instrumentations: Instrumentation[]; errors: ConfigError[] } {
  const instrumentations: Instrumentation[] = [];
  const errors: ConfigError[] = [];
  for (const name of names) {
    try {
      instrumentations.push(new (instrumentationClass(name))(instrumentationConfig(name)));
    } catch (err) {
      const e = new ConfigError(
        'OTEL_NODE_ENABLED_INSTRUMENTATIONS',
        names.join(','),
        'names of installed @opentelemetry/instrumentation-<name> packages, e.g. http,grpc,express',
        `${name}: ${(err as Error).message.split('\n')[0]}`,
      );
      e.disablesTracing = false;
      errors.push(e);
    }
  }
  return { instrumentations, errors };
}

function instrumentationClass(name: string): InstrumentationClass {
  if (name === 'http') return require('@opentelemetry/instrumentation-http').HttpInstrumentation;
  if (name === 'grpc') return require('@opentelemetry/instrumentation-grpc').GrpcInstrumentation;
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error('not an instrumentation name');
  const exports = require(`@opentelemetry/instrumentation-${name}`) as Record<string, unknown>;
  const cls = Object.entries(exports).find(([key, value]) => key.endsWith('Instrumentation') && typeof value === 'function');
  if (!cls) throw new Error(`@opentelemetry/instrumentation-${name} exports no *Instrumentation class`);
  return cls[1] as InstrumentationClass;
}

/** Per-instrumentation options that keep the request path light. */
function instrumentationConfig(name: string): Record<string, unknown> | undefined {
  return name === 'http' ? { requireParentforOutgoingSpans: false } : undefined;
}
