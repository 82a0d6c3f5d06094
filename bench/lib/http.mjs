// A one-shot GET to 127.0.0.1 on a fresh connection, bounded in time.
import http from 'node:http';

export function httpGet(port, path = '/', timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode, body, t: performance.now() }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET 127.0.0.1:${port}${path} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}
