// The exit scenario's app: serves and makes 20 traced HTTP requests to itself on 127.0.0.1, closes everything,
// prints `LAST` and returns; whatever keeps the process alive after that line is the tracer's.
// Usage: node bench/apps/exit-app.cjs
const http = require('node:http');

async function main() {
  const server = http.createServer((req, res) => res.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const agent = new http.Agent({ keepAlive: true });
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: `/item/${i}`, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  }
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  console.log('LAST');
}

main();
