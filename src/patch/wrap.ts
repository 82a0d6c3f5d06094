import { logDebug } from '../diag/logger.js';

/**
 * The one way tracehook replaces a function it does not own (a Node.js built-in, a library's
 * method, an OpenTelemetry SDK internal). Every patch site goes through {@link wrap} /
 * {@link unwrap}, so that each patch:
 * - is idempotent: wrapping with a site id already in the function's chain of wrappers is a no-op,
 *   across every copy of tracehook's code in the process (the key is `Symbol.for`);
 * - is detectable by other agents: the wrapper carries shimmer's `__wrapped`, `__original` and
 *   `__unwrap` (what OpenTelemetry's `InstrumentationBase` and its `isWrapped()` look for) and
 *   {@link PATCHED}, the site id;
 * - keeps the original's `name` and `length`, and the property's enumerability;
 * - says at DEBUG level when the thing to patch is missing (a Node.js or library release changed
 *   it), instead of failing silently.
 * @see https://github.com/othiym23/shimmer (the `__wrapped`/`__original`/`__unwrap` convention)
 */

/** The property of a tracehook wrapper holding its site id (a string such as `http.Server#emit`). */
export const PATCHED = Symbol.for('tracehook.patched');

/** The most wrappers followed down a chain (a cycle or an absurd stack is not followed further). */
const MAX_CHAIN = 64;

type AnyFunction = (...args: never[]) => unknown;

/** A wrapper as seen by other agents: shimmer's properties and tracehook's site id. */
export interface Wrapped {
  __wrapped?: boolean;
  __original?: unknown;
  __unwrap?: () => void;
  [PATCHED]?: string;
}

function defineHidden(fn: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(fn, key, { value, writable: true, configurable: true, enumerable: false });
}

/** The site id of `fn` when `fn` itself (not a class it extends) is a tracehook wrapper. */
function ownSiteId(fn: unknown): string | undefined {
  if (typeof fn !== 'function') return undefined;
  const d = Object.getOwnPropertyDescriptor(fn, PATCHED);
  return typeof d?.value === 'string' ? d.value : undefined;
}

/**
 * The site ids of the tracehook wrappers in `fn`'s chain (`fn`, its `__original`, …), outermost
 * first; a wrapper of another agent in between is passed through.
 */
export function patchedSites(fn: unknown): string[] {
  const ids: string[] = [];
  let current = fn;
  for (let i = 0; i < MAX_CHAIN && typeof current === 'function'; i++) {
    const id = ownSiteId(current);
    if (id !== undefined) ids.push(id);
    if (!Object.prototype.hasOwnProperty.call(current, '__original')) break;
    current = (current as Wrapped).__original;
  }
  return ids;
}

/** Whether `fn` is, or wraps, the tracehook wrapper of site `id` (any tracehook wrapper without `id`). */
export function isPatched(fn: unknown, id?: string): boolean {
  const ids = patchedSites(fn);
  return id === undefined ? ids.length > 0 : ids.includes(id);
}

/**
 * Marks `wrapped` as the wrapper of `original` for site `id`: shimmer's properties, the site id,
 * and the original's `name` and `length`. For a replacement that is not assigned to a property by
 * {@link wrap} (a module's whole exports, say). Returns `wrapped`.
 */
export function markWrapper<F extends object>(wrapped: F, original: unknown, id: string): F {
  if (typeof original === 'function') {
    for (const key of ['name', 'length'] as const) {
      try {
        Object.defineProperty(wrapped, key, { value: (original as AnyFunction)[key], configurable: true });
      } catch {
        // a non-configurable name/length: the wrapper keeps its own
      }
    }
  }
  defineHidden(wrapped, '__original', original);
  defineHidden(wrapped, '__wrapped', true);
  defineHidden(wrapped, PATCHED, id);
  return wrapped;
}

/**
 * Gives `fn` the `name` `key` when its own is empty (Node.js 22+ defines `Module.prototype.load` and `require` as
 * anonymous functions), and only then. V8 names such a function's stack frame by finding it as a property of the
 * receiver, which fails once a wrapper has taken its place: the app's stack would print `Module.<anonymous>` where it
 * prints `Module.load` untraced. With the name, it prints as untraced. Only the wrapped original changes (the app
 * sees the wrapper, which keeps the original's empty name). Never throws.
 */
export function nameAsMethod(fn: unknown, key: PropertyKey): void {
  if (typeof fn !== 'function' || typeof key !== 'string') return;
  const own = Object.getOwnPropertyDescriptor(fn, 'name');
  if (own !== undefined && own.value !== '') return;
  try {
    Object.defineProperty(fn, 'name', { value: key, configurable: true });
  } catch {
    // a non-configurable name: its frame keeps V8's name
  }
}

/** Where a patch site is and what it is for, for the DEBUG line when its target is missing. */
export interface PatchSite {
  /** The logger component (`http`, `workers`, `exit`, …). */
  component: string;
  /** The site id, unique in tracehook: `<owner>.<member>`, e.g. `worker_threads.receiveMessageOnPort`. */
  id: string;
  /** What is lost when the target is missing, e.g. "pool tasks run without their caller's trace". */
  otherwise: string;
}

/**
 * Replaces `target[name]` with `wrapper(original)`, unless site `site.id` already wraps it.
 * The property becomes an own, writable, configurable property of `target` with the enumerability
 * it had (non-enumerable when it was inherited). Never throws: a missing function, a wrapper that
 * returns no function or a property that cannot be redefined is logged at DEBUG and leaves
 * `target` as it was.
 * @returns true when `target[name]` was wrapped by this call
 */
export function wrap<T extends object, K extends keyof T & (string | symbol)>(target: T | null | undefined, name: K, site: PatchSite, wrapper: (original: T[K]) => T[K]): boolean {
  const original = target == null ? undefined : (target as Record<K, unknown>)[name];
  if (typeof original !== 'function') {
    logDebug(site.component, `${site.id}: ${String(name)} not found (Node.js ${process.version}), not patched: ${site.otherwise}`);
    return false;
  }
  if (isPatched(original, site.id)) return false;
  try {
    const wrapped = wrapper(original as T[K]) as unknown;
    if (typeof wrapped !== 'function') throw new TypeError('the wrapper returned no function');
    const own = Object.getOwnPropertyDescriptor(target, name);
    markWrapper(wrapped, original, site.id);
    nameAsMethod(original, name);
    defineHidden(wrapped, '__unwrap', () => {
      const t = target as Record<K, unknown>;
      if (t[name] !== wrapped) return;
      if (own !== undefined) Object.defineProperty(t, name, own);
      else delete t[name];
    });
    Object.defineProperty(target, name, { value: wrapped, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
    return true;
  } catch (err) {
    logDebug(site.component, `${site.id}: ${String(name)} could not be patched (${(err as Error)?.message ?? err}): ${site.otherwise}`);
    return false;
  }
}

/**
 * Undoes {@link wrap} of site `id` on `target[name]`: the property is as it was before (restored,
 * or deleted when it was inherited). When another agent has wrapped it since, tracehook's wrapper
 * stays inside theirs (taking it out would drop theirs too): said at DEBUG level.
 * @returns true when the property was restored
 */
export function unwrap<T extends object>(target: T | null | undefined, name: keyof T & (string | symbol), site: Pick<PatchSite, 'component' | 'id'>): boolean {
  const { component, id } = site;
  const current = target == null ? undefined : (target as Record<PropertyKey, unknown>)[name];
  if (ownSiteId(current) === id) {
    try {
      (current as Wrapped).__unwrap?.();
      return (target as Record<PropertyKey, unknown>)[name] !== current;
    } catch (err) {
      logDebug(component, `${id}: ${String(name)} could not be restored (${(err as Error)?.message ?? err})`);
      return false;
    }
  }
  if (isPatched(current, id)) logDebug(component, `${id}: ${String(name)} was wrapped again by another agent since; tracehook's wrapper stays inside it`);
  return false;
}
