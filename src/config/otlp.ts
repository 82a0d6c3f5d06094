import { fallbackError } from './config-error.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';
import { readKeyValues } from './key-values.js';

/** The OTLP transports: `OTEL_EXPORTER_OTLP_PROTOCOL` values. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;

/** One of {@link OTLP_PROTOCOLS}. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/**
 * What tracehook itself needs of the OTLP exporter variables: the protocol (which exporter package
 * to load), and the URL and headers the exit sender posts to when the process ends with spans still
 * queued. The OpenTelemetry exporters read these and the rest (`…_TIMEOUT`, `…_COMPRESSION`,
 * `…_CERTIFICATE`, `…_CLIENT_KEY`) themselves, as the specification has them do.
 */
export interface OtlpConfig {
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`; default `http/protobuf`. */
  otlpProtocol: OtlpProtocol;
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set (then `otlp` is the default exporter). */
  otlpEndpointSet: boolean;
  /**
   * Where OTLP/HTTP trace requests go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `http://localhost:4318/v1/traces`. May hold
   * credentials (userinfo, a token in the query): show it only through {@link redactUrl}.
   */
  otlpTracesUrl: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` then `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (`k=v,k2=v2`, percent-decoded). Secret values: never shown. */
  otlpHeaders: Record<string, string>;
}

/**
 * Reads {@link OtlpConfig}. An unknown protocol falls back to `http/protobuf` with one error; a
 * malformed header entry is skipped with one error that never shows header text.
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter", Configuration Options
 */
export function readOtlpConfig(env: Env, errors: ConfigError[]): OtlpConfig {
  const protocolVariable = readString(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (readString(env, protocolVariable) ?? 'http/protobuf').toLowerCase();
  let otlpProtocol: OtlpProtocol = 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(protocol)) otlpProtocol = protocol as OtlpProtocol;
  else errors.push(fallbackError(protocolVariable, protocol, `one of ${OTLP_PROTOCOLS.join(', ')}; using http/protobuf`));

  const tracesEndpoint = readString(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = readString(env, 'OTEL_EXPORTER_OTLP_ENDPOINT')?.replace(/\/+$/, '');
  return {
    otlpProtocol,
    otlpEndpointSet: tracesEndpoint !== undefined || base !== undefined,
    otlpTracesUrl: tracesEndpoint ?? (base ? `${base}/v1/traces` : 'http://localhost:4318/v1/traces'),
    otlpHeaders: {
      ...readKeyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS', errors),
      ...readKeyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', errors),
    },
  };
}

/**
 * `url` fit for a diagnostic line: user name, password and query values (a token) replaced by
 * `REDACTED`, e.g. `https://REDACTED:REDACTED@host/v1/traces?key=REDACTED`.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username) u.username = 'REDACTED';
    if (u.password) u.password = 'REDACTED';
    for (const key of new Set(u.searchParams.keys())) u.searchParams.set(key, 'REDACTED');
    return u.href;
  } catch {
    // Not a URL the WHATWG parser takes (`collector:4317` for gRPC): cut anything up to an `@`, and the query.
    return url.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)?[^/@]*@/i, '$1REDACTED@').replace(/\?.*$/, '?REDACTED');
  }
}
