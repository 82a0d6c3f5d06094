// A burst of concurrent HTTP requests on 127.0.0.1, as many in flight as `concurrency`.
import http from 'node:http';

/** GETs `path` `total` times with up to `concurrency` in flight. @returns the number of 200 answers */
export async function burst(port, { total, concurrency, path = '/work' }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let ok = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent }, (res) => {
          if (res.statusCode === 200) ok++;
          res.resume().on('end', resolve);
        })
        .on('error', reject);
    });
  const lane = async () => {
    while (next < total) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  agent.destroy();
  return ok;
}
