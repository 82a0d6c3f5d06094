// Usage: PORT=0 node --import @tracehook/register examples/grpc-service.mjs
// The pricing service of the demo: gRPC demo.Pricing/GetQuote on 127.0.0.1:$PORT (0 = any free
// port). Prints "grpc-service listening on 127.0.0.1:<port>" once it serves.
import * as grpc from '@grpc/grpc-js';
import { loadPricingPackage } from './support/pricing-proto.mjs';

const PRICES = { book: 12.5, pen: 1.2, lamp: 24 };

function getQuote(call, callback) {
  const { item, quantity } = call.request;
  const unitPrice = PRICES[item];
  // A little work, so the span has a visible duration.
  setTimeout(() => {
    if (unitPrice === undefined) {
      callback({ code: grpc.status.NOT_FOUND, details: `no price for item "${item}"` });
    } else {
      callback(null, { item, unitPrice: unitPrice * Math.max(quantity, 1), currency: 'EUR' });
    }
  }, 3);
}

const server = new grpc.Server();
server.addService(loadPricingPackage().Pricing.service, { getQuote });
server.bindAsync(`127.0.0.1:${Number(process.env.PORT ?? 0)}`, grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`grpc-service: cannot listen: ${err.message}`);
    process.exit(1);
  }
  console.log(`grpc-service listening on 127.0.0.1:${port}`);
});
