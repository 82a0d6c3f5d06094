// The official OTLP trace protobuf definitions (the copy dd-trace vendors, opentelemetry-proto
// v1.7.0) through protobufjs reflection: to decode what tracehook sends as OTLP/protobuf
// (http/protobuf bodies, gRPC Export requests).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { decodeExportRequest } from '../../dist/span-file/decode.js';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');

const PROTO_DIR = join(dirname(require.resolve('dd-trace/package.json')), 'packages/dd-trace/src/opentelemetry/otlp');
const root = protobuf.loadSync(join(PROTO_DIR, 'trace_service.proto')).resolveAll();

/** The protobufjs type of `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`. */
export const EXPORT_TRACE_REQUEST = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

/**
 * Decodes a protobuf `ExportTraceServiceRequest` into tracehook's flat span records (as span files
 * decode): ids as lowercase hex, kinds and status codes by name, int64 times as BigInt.
 * @throws Error when `body` is not a valid protobuf request
 */
export function decodeOtlpProtobuf(body) {
  const request = EXPORT_TRACE_REQUEST.toObject(EXPORT_TRACE_REQUEST.decode(body), { longs: String, bytes: String });
  return decodeExportRequest(request);
}
