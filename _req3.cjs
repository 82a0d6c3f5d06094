const t = [];
let t0 = performance.now(); require('express'); t.push(performance.now() - t0);
t0 = performance.now(); require('ioredis'); t.push(performance.now() - t0);
t0 = performance.now(); require('pg'); t.push(performance.now() - t0);
console.log(t.map((x) => x.toFixed(1)).join(' '), require('pg').Client.prototype.query.__wrapped === true, require('ioredis').prototype.sendCommand.__wrapped === true);
