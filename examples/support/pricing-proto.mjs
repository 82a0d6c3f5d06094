// Loads examples/proto/pricing.proto; shared by the gRPC server and its client (the front).
import protoLoader from '@grpc/proto-loader';
import * as grpc from '@grpc/grpc-js';
import { fileURLToPath } from 'node:url';

const PROTO_PATH = fileURLToPath(new URL('../proto/pricing.proto', import.meta.url));

/** The `demo` package of pricing.proto: `demo.Pricing` is the service (and client constructor). */
export function loadPricingPackage() {
  const definition = protoLoader.loadSync(PROTO_PATH, { keepCase: false, defaults: true });
  return grpc.loadPackageDefinition(definition).demo;
}
