// Loads the libraries of the bundler tests' apps, then prints its CPU time (µs, user + system) and exits.
// bench/bundler.mjs bundles it with and without the esbuild plugin and runs both WITHOUT the preload: the plugin's
// wrapped modules must cost nothing there (issue 31, item 5).
require('express');
require('pg');
require('ioredis');
require('koa');
require('@koa/router');
require('@grpc/grpc-js');
require('fastify');
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(String(user + system));
});
