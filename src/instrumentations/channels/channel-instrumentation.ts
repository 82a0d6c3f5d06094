import type { MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import { TRACER_VERSION } from '../../context/tracer.js';
import type { ChannelSpans } from './channel-spans.js';
import { subscribeChannelSpans } from './channel-spans.js';
import { ioredisChannels } from './ioredis-channels.js';
import { mysql2Channels } from './mysql2-channels.js';

const BUILDERS: Readonly<Record<string, (tracer: () => Tracer) => ChannelSpans[]>> = { ioredis: ioredisChannels, mysql2: mysql2Channels };

/**
 * The libraries traced from the TracingChannels they publish (see native-channels.ts), one instance per name;
 * subscribed when enabled (at startup: a subscription is a few objects, and whether the library is installed,
 * bundled or absent does not matter), unsubscribed when disabled. Its spans' instrumentation scope is
 * `@tracehook/register/<name>-channels`.
 */
export class ChannelInstrumentation implements Instrumentation {
  readonly instrumentationName: string;
  readonly instrumentationVersion = TRACER_VERSION ?? '0.0.0';
  private provider: TracerProvider | undefined;
  private cached: Tracer | undefined;
  private unsubscribe: Array<() => void> = [];
  private config: InstrumentationConfig = { enabled: true };

  /**
   * @param name - a key of NATIVE_CHANNELS (`ioredis`, `mysql2`): the auto-instrumentations-node name of the library's
   *   patch-based instrumentation, which a startup hook's own instrumentations are matched by (step-aside.ts)
   * @throws Error for a name without channel spans
   */
  constructor(readonly name: string) {
    if (BUILDERS[name] === undefined) throw new Error(`no channel spans for ${name}`);
    this.instrumentationName = `@tracehook/register/${name}-channels`;
    this.enable();
  }

  private readonly tracer = (): Tracer => (this.cached ??= (this.provider ?? trace.getTracerProvider()).getTracer(this.instrumentationName, this.instrumentationVersion));

  enable(): void {
    if (this.unsubscribe.length > 0) return;
    this.unsubscribe = BUILDERS[this.name]!(this.tracer).map(subscribeChannelSpans);
  }

  disable(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
  }

  setTracerProvider(provider: TracerProvider): void {
    this.provider = provider;
    this.cached = undefined;
  }

  setMeterProvider(_provider: MeterProvider): void {
    // tracehook records no metrics.
  }

  setConfig(config: InstrumentationConfig): void {
    this.config = config;
  }

  getConfig(): InstrumentationConfig {
    return this.config;
  }
}
