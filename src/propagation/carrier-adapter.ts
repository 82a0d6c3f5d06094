import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';

/**
 * A carrier with methods, matched by duck typing: gRPC `Metadata` (`get` returns an array of
 * values, `remove`, `getMap`), `Map`, the fetch `Headers` class (`delete`, `keys`), and the
 * environment carrier. Only `get` and `set` are required.
 */
export interface MethodCarrier {
  get(key: string): unknown;
  set(key: string, value: string): unknown;
  remove?(key: string): unknown;
  delete?(key: string): unknown;
  keys?(): Iterable<unknown>;
  getMap?(): Record<string, unknown>;
}

/** Getter, setter and remover for one kind of carrier. */
export interface CarrierAdapter extends TextMapGetter<object>, TextMapSetter<object> {
  remove(carrier: object, key: string): void;
}

/** True for carriers read and written through their own `get`/`set` methods. */
export function isMethodCarrier(carrier: object): carrier is MethodCarrier {
  const c = carrier as Partial<MethodCarrier>;
  return typeof c.get === 'function' && typeof c.set === 'function';
}

/** The adapter for `carrier`: its own methods when it has `get`/`set`, else object properties. */
export function adapterFor(carrier: object): CarrierAdapter {
  return isMethodCarrier(carrier) ? METHOD_ADAPTER : OBJECT_ADAPTER;
}

/**
 * Plain objects and HTTP header objects (`IncomingHttpHeaders`, `headersDistinct`,
 * `OutgoingHttpHeaders`): `get` matches the exact key first, then any case of it (header names
 * are case-insensitive); array values are returned as arrays (the W3C propagators take the first
 * `traceparent` and join several `tracestate` or `baggage` values); numbers become strings.
 */
export const OBJECT_ADAPTER: CarrierAdapter = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const record = carrier as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(record, key)) return headerValue(record[key]);
    const lower = key.toLowerCase();
    for (const k of Object.keys(record)) {
      if (k.toLowerCase() === lower) return headerValue(record[k]);
    }
    return undefined;
  },
  set(carrier, key, value) {
    (carrier as Record<string, unknown>)[key] = value;
  },
  remove(carrier, key) {
    const record = carrier as Record<string, unknown>;
    const lower = key.toLowerCase();
    for (const k of Object.keys(record)) {
      if (k.toLowerCase() === lower) delete record[k];
    }
  },
};

const METHOD_ADAPTER: CarrierAdapter = {
  keys(carrier) {
    const c = carrier as MethodCarrier;
    if (typeof c.keys === 'function') return Array.from(c.keys()).filter((k): k is string => typeof k === 'string');
    if (typeof c.getMap === 'function') return Object.keys(c.getMap());
    return [];
  },
  get: (carrier, key) => headerValue((carrier as MethodCarrier).get(key)),
  set(carrier, key, value) {
    (carrier as MethodCarrier).set(key, value);
  },
  remove(carrier, key) {
    const c = carrier as MethodCarrier;
    if (typeof c.remove === 'function') c.remove(key);
    else if (typeof c.delete === 'function') c.delete(key);
  },
};

function headerValue(value: unknown): string | string[] | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (!Array.isArray(value)) return undefined;
  const strings = value.filter((v): v is string => typeof v === 'string');
  if (strings.length === 0) return undefined;
  return strings.length === 1 ? strings[0] : strings;
}
