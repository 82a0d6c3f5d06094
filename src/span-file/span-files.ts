/**
 * Which span files `tracehook view`, `ui` and `export` read, and how they open them: with the same
 * safety rules the preload writes them by (src/exporters/private-file.ts). The default directory
 * falls back as the preload's does; a file is opened without following a symlink and without
 * blocking, and read only when it is a regular file of ours or root's; its size when opened bounds
 * what is read of it. A file that fails is skipped and reported; the others are still read.
 */
import { constants, type Dirent } from 'node:fs';
import { access, open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readSpansDirConfig } from '../config/spans-dir';
import { O_NOFOLLOW, O_NONBLOCK, UnsafePathError, checkPrivateDir, fileKind, trustedOwner, unsafeOpenError } from '../exporters/private-file';

/** The extension of span files; other files in a span directory are ignored. */
export const SPAN_FILE_EXTENSION = '.jsonl';

/** A terminal named `x.jsonl` must not become our controlling terminal when opened. */
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** How span files are read. */
export interface SpanFileOptions {
  /** Read files of other users too (`--any-owner`); default false: only ours and root's. */
  anyOwner?: boolean;
}

/** A span file, or a `*.jsonl` entry, that was not read, and why. */
export interface SkippedFile {
  file: string;
  /** One line naming the file: "/tmp/spans/1.jsonl is a FIFO, not a regular file". */
  reason: string;
}

/** How many directory levels below a given directory {@link findAllSpanFiles} looks for span files. */
export const SPAN_DIR_MAX_DEPTH = 4;

/** The most directories {@link findAllSpanFiles} lists below one given path: a walk of `/` stays bounded. */
export const SPAN_DIRS_MAX = 10_000;

/**
 * The span files a path stands for: a directory's `*.jsonl` entries that are regular files, and
 * with `maxDepth` > 0 those of its subdirectories down to that many levels below it (a symlink to
 * a directory is not followed; at most `maxDirs` directories), or a file itself (a
 * symlink named here is followed: the caller chose it). Absolute paths, unsorted; a path that does
 * not exist gives nothing. Entries that are not regular files (a symlink, a FIFO, a directory named
 * `x.jsonl`), subdirectories that cannot be listed and the directories past the limit (one line) are
 * returned as skipped, never opened; deeper levels are not looked at.
 * @param maxDepth - levels of subdirectories searched (0: the directory alone)
 * @param maxDirs - most directories listed below `path`
 * @throws fs errors other than ENOENT on `path` itself (EACCES…)
 */
export async function findSpanFiles(path: string, maxDepth = 0, maxDirs = SPAN_DIRS_MAX): Promise<{ files: string[]; skipped: SkippedFile[] }> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], skipped: [] };
    throw err;
  }
  if (!info.isDirectory()) return { files: [await realpath(abs)], skipped: [] };
  const files: string[] = [];
  const skipped: SkippedFile[] = [];
  // Breadth first: the given directory's own files come first, the deepest levels last.
  const queue = [{ dir: abs, depth: 0 }];
  let tooMany = false;
  for (let i = 0; i < queue.length; i++) {
    const { dir, depth } = queue[i];
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (i === 0) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') skipped.push({ file: dir, reason: `${dir}: cannot list it (${code ?? (err as Error).message})` });
      continue;
    }
    for (const entry of entries) {
      const file = join(dir, entry.name);
      if (entry.name.endsWith(SPAN_FILE_EXTENSION)) {
        if (entry.isFile()) files.push(file);
        else skipped.push({ file, reason: notRegular(file, entry) });
      } else if (depth < maxDepth && entry.isDirectory()) {
        if (queue.length <= maxDirs) queue.push({ dir: file, depth: depth + 1 });
        else if (!tooMany) {
          tooMany = true;
          skipped.push({ file: abs, reason: `${abs}: more than ${maxDirs} directories below it; the rest not read (name a subdirectory to read it)` });
        }
      }
    }
  }
  return { files, skipped };
}

/**
 * The span files of several paths ({@link findSpanFiles} for each, {@link SPAN_DIR_MAX_DEPTH}
 * levels deep), sorted, each once: what `tracehook view`, `ui`, `export` and `mcp` read. A path
 * that cannot be listed (EACCES…) is skipped as a file is: the other paths are still read.
 * @returns the files, and the entries and paths skipped (path → one line saying why)
 */
export async function findAllSpanFiles(paths: readonly string[]): Promise<{ files: string[]; skipped: Map<string, string> }> {
  const found = new Set<string>();
  const skipped = new Map<string, string>();
  for (const p of paths) {
    try {
      const listing = await findSpanFiles(p, SPAN_DIR_MAX_DEPTH);
      for (const f of listing.files) found.add(f);
      for (const { file, reason } of listing.skipped) skipped.set(file, reason);
    } catch (err) {
      skipped.set(p, skippedFileReason(p, err));
    }
  }
  return { files: [...found].sort(), skipped };
}

/**
 * Opens a span file for reading: `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`, then checks what was opened
 * (`fstat`): a regular file, owned by us or root unless `anyOwner`.
 * @returns the open handle (the caller closes it) and the file's size when opened, bytes: read no further
 * @throws UnsafePathError for a symlink, FIFO, device, directory or another user's file; fs errors as they are
 */
export async function openSpanFile(path: string, options: SpanFileOptions = {}): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (err) {
    throw unsafeOpenError(path, err as NodeJS.ErrnoException);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new UnsafePathError(notRegular(path, st));
    if (!options.anyOwner && !trustedOwner(st.uid)) throw new UnsafePathError(`${path} is owned by uid ${st.uid}, another user (--any-owner reads it)`);
    return { handle, size: st.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Why a file was skipped, in one line that names it. */
export function skippedFileReason(file: string, err: unknown): string {
  if (err instanceof UnsafePathError) return err.message;
  const e = err as NodeJS.ErrnoException;
  return `${file}: cannot read it (${e.code ?? e.message})`;
}

function notRegular(path: string, st: Dirent | Parameters<typeof fileKind>[0]): string {
  return st.isSymbolicLink() ? `${path} is a symlink (not followed)` : `${path} is ${fileKind(st)}, not a regular file`;
}

/** The directories read when none is given, and what to say about them. */
export interface DefaultSpanDirs {
  paths: string[];
  /** Lines for stderr: why the default directory was replaced by the fallback, or the fallback left out. */
  notes: string[];
}

/**
 * The directories the preload writes span files to when none is given, as the preload picks them
 * (src/exporters/file-span-exporter.ts): `TRACEHOOK_SPANS_DIR` as it is; else `/tmp/spans` when it is
 * safe (ours or root's, not writable by others unless sticky) and readable, plus the per-user fallback
 * `<os.tmpdir()>/spans-<uid>` when it exists and is safe (a process that found `/tmp/spans` unsafe
 * earlier wrote there); else the fallback alone, with one note saying why.
 */
export async function defaultSpanDirs(env: Record<string, string | undefined>): Promise<DefaultSpanDirs> {
  const { spansDir, spansFallbackDir } = readSpansDirConfig(env);
  if (spansFallbackDir === undefined) return { paths: [spansDir], notes: [] };
  const notes: string[] = [];
  const fallback = await safeDir(spansFallbackDir);
  if (fallback.problem) notes.push(`${fallback.problem}; not reading it`);
  const main = await safeDir(spansDir);
  if (main.exists && !main.problem) return { paths: fallback.exists && !fallback.problem ? [spansDir, spansFallbackDir] : [spansDir], notes };
  if (fallback.exists && !fallback.problem) {
    if (main.problem) notes.unshift(`${main.problem}; reading ${spansFallbackDir} instead, where the preload writes in that case`);
    return { paths: [spansFallbackDir], notes };
  }
  if (main.problem) notes.unshift(`${main.problem}; the preload writes to ${spansFallbackDir} in that case, which does not exist either`);
  // Nothing to read: the default stays named when it is only missing, so the message says where we looked.
  return { paths: main.problem ? [] : [spansDir], notes };
}

/** Whether `dir` exists, and why it is not safe or not readable for span files, if so. */
async function safeDir(dir: string): Promise<{ exists: boolean; problem?: string }> {
  try {
    checkPrivateDir(dir);
    await access(dir, constants.R_OK | constants.X_OK);
    return { exists: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    if (err instanceof UnsafePathError) return { exists: true, problem: `${err.message}: not safe for span files` };
    return { exists: true, problem: `cannot read ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}
