import { closeSync, openSync, readSync } from 'node:fs';

// Taken at load, before any fs instrumentation or test double can replace them: reading the
// random device must never make a span or hit a mock.
const fs = { closeSync, openSync, readSync };
let deviceReadable = process.platform !== 'win32';

/**
 * Fills `target` with bytes from the operating system's CSPRNG: `/dev/urandom` (the kernel's CSPRNG,
 * the source `crypto.randomFillSync` draws from on Linux), so that the preload does not load
 * node:crypto, whose first `require` adds to startup (bench: startup, spawn → first HTTP 200, tracehook-files row). Where the device cannot be read
 * (Windows, a sandbox without /dev), `crypto.randomFillSync`.
 * @returns `target`
 * @throws only what `crypto.randomFillSync` throws
 */
export function fillRandom(target: Buffer): Buffer {
  if (!fromDevice(target)) (require('node:crypto') as typeof import('node:crypto')).randomFillSync(target);
  return target;
}

function fromDevice(target: Buffer): boolean {
  if (!deviceReadable) return false;
  let fd = -1;
  try {
    fd = fs.openSync('/dev/urandom', 'r');
    for (let filled = 0; filled < target.length;) {
      const n = fs.readSync(fd, target, filled, target.length - filled, null);
      if (n <= 0) throw new Error('short read');
      filled += n;
    }
    return true;
  } catch {
    deviceReadable = false;
    return false;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}
