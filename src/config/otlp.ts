import { ConfigError, fallbackError } from './config-error.js';
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
  /** The endpoint variable the trace exporter reads (the `TRACES` one first) and its value, when one is set; see {@link otlpEndpointError}. */
  otlpEndpoint?: { variable: string; value: string };
}

/**
 * Reads {@link OtlpConfig}. An unknown protocol falls back to `http/protobuf` with one error; a
 * malformed header entry is skipped with one error that never shows header text; an endpoint the
 * protocol's exporter cannot use is an error that turns tracing off ({@link otlpEndpointError}).
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter", Configuration Options
 */
export function readOtlpConfig(env: Env, errors: ConfigError[]): OtlpConfig {
  const protocolVariable = readString(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (readString(env, protocolVariable) ?? 'http/protobuf').toLowerCase();
  let otlpProtocol: OtlpProtocol = 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(protocol)) otlpProtocol = protocol as OtlpProtocol;
  else errors.push(fallbackError(protocolVariable, protocol, `one of ${OTLP_PROTOCOLS.join(', ')}; using http/protobuf`));

  const tracesEndpoint = readString(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = readString(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const base = endpoint?.replace(/\/+$/, '');
  const otlpEndpoint =
    tracesEndpoint !== undefined
      ? { variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', value: tracesEndpoint }
      : endpoint !== undefined
        ? { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: endpoint }
        : undefined;
  const endpointError = otlpEndpointError(otlpEndpoint, otlpProtocol);
  if (endpointError) errors.push(endpointError);
  return {
    otlpProtocol,
    otlpEndpointSet: otlpEndpoint !== undefined,
    otlpTracesUrl: tracesEndpoint ?? (base ? `${base}/v1/traces` : 'http://localhost:4318/v1/traces'),
    otlpHeaders: {
      ...readKeyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS', errors),
      ...readKeyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', errors),
    },
    otlpEndpoint,
  };
}

/** What the OTLP/gRPC exporter takes without a scheme: `host:port` (it reads that as `https://host:port`). */
const HAS_SCHEME = /^\w{1,8}:\/\//;

/**
 * The error for an OTLP endpoint the exporter for `protocol` cannot use, checked before any
 * OpenTelemetry exporter sees it: left to itself, the OTLP/HTTP exporter prints an unparseable
 * endpoint whole in a warning (password included) and then sends to `http://localhost:4318`, with
 * the `OTEL_EXPORTER_OTLP_*HEADERS`, where any local user may listen. Accepted, as the WHATWG URL
 * parser reads it: for OTLP/HTTP an `http:` or `https:` URL; for OTLP/gRPC also `host:port` and
 * `unix:` (what its exporter takes). An unparseable value is never shown, as it may hold a secret
 * the parser could not separate; a parseable one only through {@link redactUrl}.
 * @param endpoint - the variable the exporter reads and its value ({@link OtlpConfig.otlpEndpoint}); undefined: the default endpoint, fine
 * @returns a ConfigError that turns tracing off (no fallback address), or undefined
 * @see OpenTelemetry specification, "OpenTelemetry Protocol Exporter", Endpoint URLs
 */
export function otlpEndpointError(endpoint: OtlpConfig['otlpEndpoint'], protocol: OtlpProtocol): ConfigError | undefined {
  if (!endpoint) return undefined;
  const grpc = protocol === 'grpc';
  const accepted = `an http:// or https:// URL${grpc ? ' (or host:port)' : ''} for OTLP ${protocol}`;
  let url: URL;
  try {
    url = new URL(grpc && !HAS_SCHEME.test(endpoint.value) ? `https://${endpoint.value}` : endpoint.value);
  } catch {
    return new ConfigError(endpoint.variable, undefined, accepted, 'it is not a URL; the value is not shown, as it may hold a secret');
  }
  if (url.protocol === 'http:' || url.protocol === 'https:' || (grpc && url.protocol === 'unix:')) return undefined;
  return new ConfigError(endpoint.variable, redactUrl(endpoint.value), accepted);
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
