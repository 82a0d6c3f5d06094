// A local OTLP/gRPC trace receiver on 127.0.0.1:0 for the tests: stores the protobuf body and the
// metadata (as a plain object) of each TraceService/Export call and answers with an empty
// ExportTraceServiceResponse, or with `answer` (protobuf bytes: an OTLP partial success, say) when given.
import * as grpc from '@grpc/grpc-js';

const same = (b) => b;

export async function startGrpcReceiver({ answer = Buffer.alloc(0) } = {}) {
  const requests = [];
  const server = new grpc.Server();
  const method = {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  };
  server.addService(
    { Export: method },
    {
      Export(call, callback) {
        requests.push({ body: call.request, metadata: call.metadata.getMap() });
        callback(null, answer);
      },
    },
  );
  const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  return { port, requests, close: () => new Promise((r) => server.tryShutdown(() => r())) };
}
