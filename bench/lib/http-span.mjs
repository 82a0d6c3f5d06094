// The attributes tracehook's HTTP server instrumentation puts on a hello-world request's SERVER span,
// for the micro-benchmarks that make such spans without a server (encode.mjs, span.mjs).
export const HELLO_SERVER_ATTRIBUTES = Object.freeze({
  'http.request.method': 'GET',
  'url.path': '/',
  'url.scheme': 'http',
  'server.address': '127.0.0.1',
  'server.port': 3000,
  'network.protocol.version': '1.1',
  'client.address': '127.0.0.1',
  'user_agent.original': 'autocannon',
});
