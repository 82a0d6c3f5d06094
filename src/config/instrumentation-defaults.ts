/**
 * Which instrumentations run when `OTEL_NODE_ENABLED_INSTRUMENTATIONS` is not set: every one of
 * @opentelemetry/auto-instrumentations-node (the set OpenTelemetry's own preload enables) except
 * those in {@link OFF_BY_DEFAULT}. Apart from http and undici, each is loaded only when the app
 * first loads a module it patches (see LazyInstrumentations), so unused ones cost nothing.
 */
export const DEFAULT_INSTRUMENTATIONS = [
  'http',
  'grpc',
  'undici',
  'amqplib',
  'aws-sdk',
  'cassandra-driver',
  'cucumber',
  'dataloader',
  'generic-pool',
  'graphql',
  'hapi',
  'ioredis',
  'kafkajs',
  'knex',
  'lru-memoizer',
  'memcached',
  'mongodb',
  'mongoose',
  'mysql',
  'mysql2',
  'openai',
  'oracledb',
  'pg',
  'redis',
  'restify',
  'socket.io',
  'tedious',
] as const;

/** Instrumentations of auto-instrumentations-node that run only when named, and why. */
export const OFF_BY_DEFAULT: Readonly<Record<string, string>> = {
  express: "the route comes from tracehook's light route hook; name it for a span per middleware",
  koa: "the route comes from tracehook's light route hook; name it for a span per middleware",
  router: "the route comes from tracehook's light route hook; name it for a span per middleware",
  connect: 'a span per middleware; name it to get them',
  'nestjs-core': 'the route comes from the Express route hook; name it for a span per controller call',
  dns: 'patches a Node.js built-in at startup; a span per lookup',
  net: 'patches a Node.js built-in at startup; a span per socket',
  fs: "patches a Node.js built-in at startup; a span per file operation (off in OpenTelemetry's preload too)",
  pino: "writes trace ids into the app's log records, which changes its output",
  winston: "writes trace ids into the app's log records, which changes its output",
  bunyan: "writes trace ids into the app's log records, which changes its output",
  'runtime-node': 'metrics only; tracehook records no metrics',
  'host-metrics': "metrics only; tracehook records no metrics (off in OpenTelemetry's preload too)",
  'aws-lambda': 'for AWS Lambda handlers only',
};

/**
 * Bundled with the preload and enabled at startup: Node.js built-ins and fetch's diagnostics channels,
 * which no module load announces. (gRPC is loaded, like the others, when the app loads @grpc/grpc-js.)
 */
export const BUILT_IN_INSTRUMENTATIONS = ['http', 'undici'] as const;
