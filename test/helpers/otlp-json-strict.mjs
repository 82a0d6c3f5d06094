// A strict reader of OTLP/JSON ExportTraceServiceRequest lines, built on protobufjs's reflection of
// the official opentelemetry-proto definitions (the copy dd-trace vendors, opentelemetry-proto
// v1.7.0): proto3 JSON mapping rules, plus OTLP/JSON's own (hex trace and span ids).
//   - only known fields, by their lowerCamelCase JSON names; a oneof holds one member at most;
//   - strings are well-formed Unicode (a lone surrogate is not valid UTF-8);
//   - 32-bit integers as JSON numbers (or decimal strings) within range; 64-bit integers as decimal
//     strings or integral numbers, within int64/uint64 range;
//   - enums as a known name or a known number; bytes as base64, except traceId/spanId/parentSpanId
//     (lowercase hex of 16/8 bytes; parentSpanId may be empty);
//   - repeated fields as arrays, messages as objects.
import { createRequire } from 'node:module';
import { EXPORT_TRACE_REQUEST as REQUEST } from './otlp-proto.mjs';

const protobuf = createRequire(import.meta.url)('protobufjs');

const RANGES = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};
const HEX_IDS = { traceId: 32, spanId: 16, parentSpanId: 16 };

/**
 * Parses `line` and checks it strictly. @returns the parsed request
 * @throws Error naming the JSON path of the first violation
 */
export function readStrictOtlpJsonLine(line) {
  const value = JSON.parse(line);
  checkMessage(REQUEST, value, '$');
  return value;
}

function fail(path, what) {
  throw new Error(`${path}: ${what}`);
}

function checkMessage(type, value, path) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, `expected a ${type.name} object`);
  const byJsonName = new Map(type.fieldsArray.map((f) => [f.options?.json_name ?? lowerCamel(f.name), f]));
  const oneofs = new Map();
  for (const [key, v] of Object.entries(value)) {
    const field = byJsonName.get(key);
    if (!field) fail(`${path}.${key}`, `unknown field of ${type.name}`);
    if (v === null) continue;
    if (field.partOf) {
      if (oneofs.has(field.partOf.name)) fail(`${path}.${key}`, `second member of oneof ${field.partOf.name}`);
      oneofs.set(field.partOf.name, key);
    }
    if (field.repeated) {
      if (!Array.isArray(v)) fail(`${path}.${key}`, 'expected an array');
      v.forEach((item, i) => checkValue(field, item, `${path}.${key}[${i}]`));
    } else checkValue(field, v, `${path}.${key}`);
  }
}

function checkValue(field, v, path) {
  if (field.resolvedType instanceof protobuf.Type) return checkMessage(field.resolvedType, v, path);
  if (field.resolvedType instanceof protobuf.Enum) {
    const values = field.resolvedType.values;
    if (typeof v === 'string' ? !(v in values) : !(Number.isInteger(v) && Object.values(values).includes(v))) fail(path, `not a value of enum ${field.resolvedType.name}: ${JSON.stringify(v)}`);
    return;
  }
  const t = field.type;
  if (t === 'string') {
    if (typeof v !== 'string') fail(path, 'expected a string');
    if (!v.isWellFormed()) fail(path, 'string with a lone surrogate (not valid UTF-8)');
  } else if (t === 'bool') {
    if (typeof v !== 'boolean') fail(path, 'expected true or false');
  } else if (t === 'double' || t === 'float') {
    if (typeof v !== 'number' && !['NaN', 'Infinity', '-Infinity'].includes(v)) fail(path, 'expected a number');
  } else if (t === 'bytes') {
    const hex = HEX_IDS[field.name];
    if (hex !== undefined) {
      if (typeof v !== 'string' || !(new RegExp(`^[0-9a-f]{${hex}}$`).test(v) || (field.name === 'parentSpanId' && v === '')))
        fail(path, `expected ${hex} lowercase hex chars, got ${JSON.stringify(v)}`);
    } else if (typeof v !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v)) fail(path, 'expected base64');
  } else if (t in RANGES) {
    let n;
    if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
    else if (typeof v === 'string' && /^-?(0|[1-9]\d*)$/.test(v)) n = BigInt(v);
    else fail(path, `expected an integer (${t}), got ${JSON.stringify(v)}`);
    const [min, max] = RANGES[t];
    if (n < min || n > max) fail(path, `${t} out of range: ${v}`);
    if (typeof v === 'number' && !Number.isSafeInteger(v)) fail(path, `${t} as a number beyond 2^53 loses precision: ${v}`);
  } else fail(path, `unhandled field type ${t}`);
}

function lowerCamel(name) {
  return name.replace(/_([a-z])/g, (_m, c) => c.toUpperCase());
}
