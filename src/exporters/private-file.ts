import type { Stats } from 'node:fs';
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';

/** A directory or file tracehook must not write to; the message says why, naming the owner's uid. */
export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
}

/** Never follow a symlink planted under a span file's name. */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO planted under a span file's name would block an open: fail it (writing) or return at once (reading). */
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const STICKY = 0o1000;

/** Our effective uid, or undefined where there are none (Windows): the checks then do nothing. */
function euid(): number | undefined {
  return process.geteuid?.();
}

/** Root's and our own files, directories and symlinks are trusted; another user's never are (all are, without uids). */
export function trustedOwner(uid: number, me = euid()): boolean {
  return me === undefined || uid === me || uid === 0;
}

/**
 * Makes sure `dir` is a directory span files may be written into, creating it (mode 0700) when it
 * does not exist, then {@link checkPrivateDir}.
 * @throws UnsafePathError when the directory is not safe; the fs error when it cannot be created
 */
export function preparePrivateDir(dir: string): void {
  try {
    lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  checkPrivateDir(dir);
}

/**
 * Checks that an existing `dir` is safe for span files, for the preload writing them and the viewer
 * reading them: owned by us or root, and either not writable by other users or sticky (as /tmp
 * is), where others cannot remove or replace our files. A symlink to a directory is followed only
 * when the symlink itself is ours or root's.
 * @throws UnsafePathError when the directory is not safe; the fs error (ENOENT…) when it cannot be examined
 */
export function checkPrivateDir(dir: string): void {
  const link = lstatSync(dir);
  if (euid() === undefined) return;
  if (link.isSymbolicLink() && !trustedOwner(link.uid)) throw new UnsafePathError(`${dir} is a symlink owned by uid ${link.uid}, another user`);
  const st = link.isSymbolicLink() ? statSync(dir) : link;
  if (!st.isDirectory()) throw new UnsafePathError(`${dir} is not a directory`);
  if (!trustedOwner(st.uid)) throw new UnsafePathError(`${dir} is owned by uid ${st.uid}, another user`);
  if ((st.mode & 0o022) !== 0 && (st.mode & STICKY) === 0) {
    throw new UnsafePathError(`${dir} is writable by other users (mode ${(st.mode & 0o7777).toString(8)}) and not sticky`);
  }
}

/** What a file that is not a regular file is, for messages: "a FIFO", "a directory"… */
export function fileKind(st: Pick<Stats, 'isFIFO' | 'isDirectory' | 'isSymbolicLink' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isFile'>): string {
  if (st.isFile()) return 'a regular file';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isSocket()) return 'a socket';
  return 'a device';
}

/**
 * The error of an `O_NOFOLLOW | O_NONBLOCK` open as what it means: a symlink or a FIFO under the
 * name is an {@link UnsafePathError}; any other error is returned as it is.
 */
export function unsafeOpenError(path: string, err: NodeJS.ErrnoException): Error {
  // Linux's protected_symlinks answers EACCES, not ELOOP, for another user's symlink in a sticky directory.
  if (err.code === 'ELOOP' || err.code === 'EMLINK' || (err.code === 'EACCES' && isSymlink(path))) return new UnsafePathError(`${path} is a symlink`);
  if (err.code === 'ENXIO') return new UnsafePathError(`${path} is a FIFO`);
  return err;
}

/**
 * Opens `path` for appending without following a symlink (O_NOFOLLOW), creating it with mode 0600,
 * and checks what was opened: a regular file, ours, with no other hard link (a planted hard link to
 * another file would have one). A file of ours left readable by others is made 0600.
 * @returns the file descriptor and the file's size when opened, bytes
 * @throws UnsafePathError for a symlink, FIFO, another user's file or a hard link; fs errors as they are
 */
export function openPrivateFile(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (err) {
    throw unsafeOpenError(path, err as NodeJS.ErrnoException);
  }
  try {
    const st = fstatSync(fd);
    const me = euid();
    if (!st.isFile()) throw new UnsafePathError(`${path} is ${fileKind(st)}, not a regular file`);
    if (me !== undefined && st.uid !== me) throw new UnsafePathError(`${path} is owned by uid ${st.uid}, another user`);
    if (st.nlink !== 1) throw new UnsafePathError(`${path} has ${st.nlink} hard links`);
    if ((st.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Where the file open as `fd` stands against `path`: still the file there (with its size now, bytes),
 * `deleted` (no link left: what was written to it is gone), or `moved` (renamed away, rotated, or
 * replaced: what was written to it is in the renamed file). Two stat calls.
 */
export function fileStateAt(fd: number, path: string): { size: number } | 'deleted' | 'moved' {
  let open: Stats;
  try {
    open = fstatSync(fd);
  } catch {
    return 'moved';
  }
  if (open.nlink === 0) return 'deleted';
  try {
    const now = lstatSync(path);
    return now.ino === open.ino && now.dev === open.dev ? { size: open.size } : 'moved';
  } catch {
    return 'moved';
  }
}
