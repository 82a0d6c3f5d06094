/**
 * Which Express mount paths (`app.use(path, router)`) a request's `req.baseUrl` can be trusted for.
 *
 * Express records the *actual* path a mount matched in `req.baseUrl`, not its pattern: under
 * `app.use('/users/:id', router)` a request to `/users/<9 000 characters>/posts` has that whole
 * text as its base, and a route built from it would be a name chosen by the caller, one per
 * request (unbounded cardinality). So each mount layer keeps its pattern (recorded by `use`), and
 * when a request passes a mount whose matched path is not that pattern verbatim (a parameter, a
 * wildcard, a regular expression, another letter case), the base it produced is remembered on the
 * request; a route under such a base gets no `http.route` (the span keeps `METHOD`) rather than
 * the caller's text. Errors only go that way: a stale entry (a sibling mount that called `next()`)
 * can at worst drop a route, never invent one.
 */

const kPattern = Symbol('tracehook.routes.mountPattern');
const kRawBases = Symbol('tracehook.routes.rawBases');

/** A layer of an Express router's stack, with the pattern `use` created it with (`null`: not a plain path). */
type Layer = { [kPattern]?: string | null };
type Request = { baseUrl?: string; [kRawBases]?: string[] };
type Use = (this: { stack?: Layer[] }, ...args: unknown[]) => unknown;
type HandleRequest = (this: Layer, req: Request, res: unknown, next: unknown) => unknown;

// path-to-regexp's special characters (0.1 in Express 4, 8 in Express 5), and a backslash.
const SPECIAL = /[:*?+()[\]{}!\\]/;

/**
 * The mount pattern `use(...args)` applies to its layers, as Express reads it: a first argument that is
 * not a function (nor an array starting with one) is the path. Normalised as `req.baseUrl` holds it
 * (no trailing `/`; `/` is ''); `null` when it is not one plain path (parameters, wildcards, a
 * regular expression, an array).
 */
function mountPattern(first: unknown): string | null {
  let arg = first;
  while (Array.isArray(arg) && arg.length !== 0) arg = arg[0];
  if (typeof arg === 'function') return '';
  if (typeof first !== 'string' || SPECIAL.test(first)) return null;
  return first.endsWith('/') ? first.slice(0, -1) : first;
}

/** `Router#use` (Express 4's router `proto.use`, router 2's `Router.prototype.use`), its new layers given their pattern. */
export function wrapUse(original: Use): Use {
  return function use(this: { stack?: Layer[] }) {
    const before = Array.isArray(this?.stack) ? this.stack.length : -1;
    const result = Reflect.apply(original, this, arguments);
    if (before >= 0 && Array.isArray(this.stack)) {
      const pattern = mountPattern(arguments[0]);
      for (let i = before; i < this.stack.length; i++) {
        const layer = this.stack[i];
        if (layer && typeof layer === 'object') layer[kPattern] = pattern;
      }
    }
    return result;
  };
}

/**
 * `Layer#handle_request` (Express 4) / `Layer#handleRequest` (router 2): Express has just set
 * `req.baseUrl` for a mount layer; a base the pattern does not spell out verbatim is remembered.
 */
export function wrapHandleRequest(original: HandleRequest): HandleRequest {
  return function handleRequest(this: Layer, req: Request) {
    const pattern = this?.[kPattern];
    // '' (no path, or '/'): the base is the parent's, unchanged.
    if (pattern !== undefined && pattern !== '' && req && typeof req.baseUrl === 'string') {
      const base = req.baseUrl;
      if (pattern === null || !base.endsWith(pattern)) (req[kRawBases] ??= []).push(base);
    }
    return Reflect.apply(original, this, arguments);
  } as HandleRequest;
}

/**
 * Whether `req.baseUrl` is made of mount patterns only (so `baseUrl + route.path` is a route
 * template): false when it is, or is under, a base a mount matched with other text.
 */
export function isTemplateBase(req: Request): boolean {
  const raw = req[kRawBases];
  if (raw === undefined) return true;
  const base = req.baseUrl ?? '';
  for (const r of raw) {
    if (base === r || r === '' || (base.startsWith(r) && base.charCodeAt(r.length) === 0x2f)) return false;
  }
  return true;
}
