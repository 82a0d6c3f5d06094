import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ConfigError } from '../config/config-error.js';

type InstrumentationClass = new (config?: Record<string, unknown>) => Instrumentation;

/**
 * Creates the instrumentations named in `names` (the names auto-instrumentations-node uses:
 * `http`, `grpc`, `express`, `pg`, …, i.e. `@opentelemetry/instrumentation-<name>`). Each package
 * is required only when named, so an instrumentation that is not enabled costs nothing.
 * @param httpServer - `fast`: SERVER spans of node:http/https from {@link FastHttpServerInstrumentation}, the
 *   stock instrumentation-http keeps the client side; `stock`: instrumentation-http for both
 * @returns the instances (enabled on creation) and one ConfigError per name that could not be loaded
 */
export function loadInstrumentations(
  names: readonly string[],
  httpServer: 'fast' | 'stock' = 'fast',
): { instrumentations: Instrumentation[]; errors: ConfigError[] } {
  const instrumentations: Instrumentation[] = [];
  const errors: ConfigError[] = [];
  for (const name of names) {
    try {
      if (name === 'http' && httpServer === 'fast') {
        const { FastHttpServerInstrumentation } = require('./http/fast-http-server-instrumentation.js') as typeof import('./http/fast-http-server-instrumentation.js');
        instrumentations.push(new FastHttpServerInstrumentation());
      }
      if (name === 'http') {
        const { RouteInstrumentation } = require('./routes/route-instrumentation.js') as typeof import('./routes/route-instrumentation.js');
        instrumentations.push(new RouteInstrumentation());
      }
      instrumentations.push(new (instrumentationClass(name))(instrumentationConfig(name, httpServer)));
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
  if (name === 'undici') return require('@opentelemetry/instrumentation-undici').UndiciInstrumentation;
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error('not an instrumentation name');
  const exports = require(`@opentelemetry/instrumentation-${name}`) as Record<string, unknown>;
  const cls = Object.entries(exports).find(([key, value]) => key.endsWith('Instrumentation') && typeof value === 'function');
  if (!cls) throw new Error(`@opentelemetry/instrumentation-${name} exports no *Instrumentation class`);
  return cls[1] as InstrumentationClass;
}

/** Per-instrumentation options; with the fast server side, the stock one keeps only the client side. */
function instrumentationConfig(name: string, httpServer: 'fast' | 'stock'): Record<string, unknown> | undefined {
  if (name !== 'http') return undefined;
  return { requireParentforOutgoingSpans: false, disableIncomingRequestInstrumentation: httpServer === 'fast' };
}
