// A MySQL server that only says no (no MySQL server is installed here): on 127.0.0.1:0 it speaks enough of the
// client/server protocol (Handshake V10, mysql_native_password accepted without a check) for mysql2 to connect,
// then answers every COM_QUERY with one ERR packet, as a real server's duplicate-key error reads.
import { createServer } from 'node:net';

const packet = (seq, payload) => Buffer.concat([Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, seq]), payload]);

// LONG_PASSWORD | PROTOCOL_41 | TRANSACTIONS | SECURE_CONNECTION (no PLUGIN_AUTH: the old, fixed layout).
const CAPABILITIES = 0x0001 | 0x0200 | 0x2000 | 0x8000;
const HANDSHAKE = Buffer.concat([
  Buffer.from([0x0a]),
  Buffer.from('8.0.0-tracehook-test\0'),
  Buffer.from([1, 0, 0, 0]),
  Buffer.alloc(8, 0x61),
  Buffer.from([0, CAPABILITIES & 0xff, CAPABILITIES >> 8, 0x21, 0x02, 0x00, 0, 0, 0]),
  Buffer.alloc(10),
  Buffer.alloc(12, 0x62),
  Buffer.from([0]),
]);
const OK = Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
const COM_QUERY = 0x03;

/**
 * Starts the server; each query gets ERR `errno` / `sqlState` / `message`.
 * @returns `{ port, close() }`
 */
export function startMysqlErrorServer({ errno = 1062, sqlState = '23000', message }) {
  const err = Buffer.concat([Buffer.from([0xff, errno & 0xff, errno >> 8]), Buffer.from(`#${sqlState}${message}`)]);
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    let authenticated = false;
    let buffered = Buffer.alloc(0);
    socket.write(packet(0, HANDSHAKE));
    socket.on('data', (data) => {
      buffered = Buffer.concat([buffered, data]);
      while (buffered.length >= 4) {
        const length = buffered[0] | (buffered[1] << 8) | (buffered[2] << 16);
        if (buffered.length < 4 + length) return;
        const seq = buffered[3];
        const payload = buffered.subarray(4, 4 + length);
        buffered = buffered.subarray(4 + length);
        if (!authenticated) {
          authenticated = true;
          socket.write(packet(seq + 1, OK));
        } else if (payload[0] === COM_QUERY) {
          socket.write(packet(seq + 1, err));
        } else {
          socket.end();
        }
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => new Promise((r) => server.close(r)) }));
  });
}
