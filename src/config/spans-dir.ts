import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBytes } from './bytes.js';
import type { ConfigError } from './config-error.js';
import type { Env } from './env.js';
import { readString } from './env.js';

/** Where span files go. */
export interface SpansDirConfig {
  /** `TRACEHOOK_SPANS_DIR`, else `/tmp/spans`. */
  spansDir: string;
  /**
   * The private per-user directory used when the default `/tmp/spans` is unsafe (another user's,
   * writable by others without the sticky bit, a symlink): `<os.tmpdir()>/spans-<uid>`. Undefined
   * when `TRACEHOOK_SPANS_DIR` is set: an explicit directory is never replaced.
   */
  spansFallbackDir?: string;
}

/** Default of `TRACEHOOK_SPANS_DIR`, as Ray's default startup hook. */
export const DEFAULT_SPANS_DIR = '/tmp/spans';

/**
 * Reads `TRACEHOOK_SPANS_DIR` (`os.tmpdir()` reads `TMPDIR`); used by the preload and by the
 * `tracehook view`, `ui` and `export` commands as the directory read when none is given.
 */
export function readSpansDirConfig(env: Env): SpansDirConfig {
  const explicit = readString(env, 'TRACEHOOK_SPANS_DIR');
  if (explicit) return { spansDir: explicit };
  return { spansDir: DEFAULT_SPANS_DIR, spansFallbackDir: join(tmpdir(), `spans-${process.geteuid?.() ?? 'user'}`) };
}

/**
 * Default of `TRACEHOOK_SPANS_MAX_BYTES`: 256 MiB per span file, ≈ 250 000 HTTP server spans. Span files are the
 * default destination, in `/tmp`, which is memory on systems that mount it as tmpfs (Debian 13's default, Fedora's,
 * Arch's): with no bound, a busy service left on the default would fill it, one span line per request.
 */
export const DEFAULT_SPANS_MAX_BYTES = 256 * 1024 ** 2;

/** `TRACEHOOK_SPANS_MAX_BYTES`, bytes (`65536`, `64KiB`, `256MiB`, `1GiB`); a bad value keeps the default, with one error. */
export function readSpansMaxBytes(env: Env, errors: ConfigError[]): number {
  return readBytes(env, 'TRACEHOOK_SPANS_MAX_BYTES', DEFAULT_SPANS_MAX_BYTES, '256MiB', errors);
}
