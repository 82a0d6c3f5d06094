import { context, SpanKind } from '@opentelemetry/api';
import type { Attributes, Link } from '@opentelemetry/api';
import { warnOnce } from '../diag/logger.js';
import { errorMessage } from './span-error.js';
import { runInSpan } from './run-in-span.js';
import { getApiTracer } from './tracer.js';

/** Any function `traced()` can wrap. */
export type AnyFunction = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the widest function type, which every function meets

/**
 * Options of {@link traced}. Every field is optional.
 * @typeParam A - the wrapped function's parameter list, for the callbacks
 */
export interface TracedOptions<A extends unknown[] = unknown[]> {
  /** Span name. Default: the function's `name` (`Class.method` for the decorator), else `'anonymous'`. */
  name?: string;
  /** Span kind. Default `SpanKind.INTERNAL`. */
  kind?: SpanKind;
  /** Attributes set when the span starts (the sampler sees them). */
  attributes?: Attributes;
  /**
   * Attributes computed from each call's arguments, merged over `attributes`. If it throws, the
   * span starts without them and a warning is logged once; the call itself goes on.
   */
  attributesFromArgs?: (...args: A) => Attributes | undefined;
  /** Start a new trace (no parent) instead of a child of the current span. Default false. */
  root?: boolean;
  /** Links of the span, or a function of the call's arguments returning them (errors: as `attributesFromArgs`). */
  links?: Link[] | ((...args: A) => Link[] | undefined);
}

/**
 * A TC39 (TypeScript 5, no `experimentalDecorators`) method decorator, as returned by
 * `traced(nameOrOptions?)`.
 */
export type TracedMethodDecorator = <This, Args extends unknown[], Return>(
  method: (this: This, ...args: Args) => Return,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Return>,
) => (this: This, ...args: Args) => Return;

/**
 * Wraps `fn` so that every call runs inside a new span, current for the call's whole work:
 * sync and async functions, generators and async generators (each `next`/`return`/`throw` runs
 * inside the span; it ends when the generator is exhausted, `return()`ed or throws, so a streamed
 * response stays inside its span; a generator that is abandoned without `return()` never ends
 * its span). `this`, arguments and the return value pass through; an async function's promise is
 * chained, settling with the same value or error after the span ended. `new` works too.
 *
 * A thrown error (or rejection) sets status ERROR with its message, records an `exception`
 * event and is rethrown unchanged. The span's parent is the current span, unless `root` is set.
 * Inside an unsampled span, that non-recording span is current (children inherit the decision
 * and attributes set there are dropped, not misplaced on the parent); the parent is current
 * again once it ends. Without a registered TracerProvider, `fn` simply runs.
 *
 * The wrapper keeps `fn`'s `name` and `length` (frameworks such as Express read `length`).
 * Tracer: `@tracehook/register` with the package version.
 *
 * @param nameOrOptions - span name, or {@link TracedOptions}; always the first argument
 * @throws TypeError at wrap time when `fn` is not a function, or when options come after the
 *   function (`traced(fn, { name })`: write `traced({ name }, fn)`), never at call time
 * @see Ray Serve `tracing_decorator_factory` (Ray pull request 61230, https://github.com/ray-project/ray/pull/61230), done without its bugs: the context is
 *   never attached without being detached, an unsampled span never pops its parent.
 * @example
 * const handle = traced('handle', async (req) => { ... });
 * const stream = traced({ name: 'rows', kind: SpanKind.SERVER }, async function* () { yield* rows(); });
 */
export function traced<F extends AnyFunction>(fn: F): F;
export function traced<F extends AnyFunction>(nameOrOptions: string | TracedOptions<Parameters<F>>, fn: F): F;
/**
 * `@traced()` / `@traced('name')` / `@traced({ ... })`: the TC39 method decorator form. The default
 * span name is `Class.method`, from the class of the receiver (`this.constructor.name`, or the
 * class itself for static methods).
 * @throws TypeError at class definition when applied to anything but a method
 */
export function traced(nameOrOptions?: string | TracedOptions): TracedMethodDecorator;
export function traced(a?: unknown, b?: unknown): unknown {
  if (typeof a === 'function') {
    // Silently ignoring misplaced options would name every span after the function instead.
    if (b !== undefined) throw new TypeError(`traced(fn, ${typeof b === 'string' ? 'name' : 'options'}): the name or options go first: traced(nameOrOptions, fn)`);
    return wrapFunction(a as AnyFunction, {});
  }
  const options = typeof a === 'string' ? { name: a } : ((a ?? {}) as TracedOptions);
  if (typeof b === 'function') return wrapFunction(b as AnyFunction, options);
  if (b !== undefined) throw new TypeError(`traced(nameOrOptions, fn): fn must be a function, got ${typeof b}`);
  return methodDecorator(options);
}

function methodDecorator(options: TracedOptions): TracedMethodDecorator {
  return ((method: AnyFunction, ctx: ClassMethodDecoratorContext) => {
    if (ctx?.kind !== 'method') {
      throw new TypeError(`@traced() decorates methods only, got ${ctx?.kind ?? typeof ctx}`);
    }
    const methodName = String(ctx.name);
    const nameFor = options.name === undefined ? (self: unknown) => qualifiedName(self, ctx.static, methodName) : undefined;
    return wrapFunction(method, options, nameFor);
  }) as TracedMethodDecorator;
}

function qualifiedName(self: unknown, isStatic: boolean, methodName: string): string {
  const cls = isStatic ? self : (self as { constructor?: unknown } | null | undefined)?.constructor;
  const className = typeof cls === 'function' ? cls.name : '';
  return className ? `${className}.${methodName}` : methodName;
}

function wrapFunction<F extends AnyFunction>(fn: F, options: TracedOptions, nameFor?: (self: unknown) => string): F {
  const fixedName = options.name ?? (fn.name || 'anonymous');
  const kind = options.kind ?? SpanKind.INTERNAL;
  function wrapped(this: unknown, ...args: unknown[]): unknown {
    const name = nameFor ? nameFor(this) : fixedName;
    const parent = context.active();
    const span = getApiTracer().startSpan(name, { kind, root: options.root === true, attributes: callAttributes(options, name, args), links: callLinks(options, name, args) }, parent);
    // `new wrapped()` builds an instance of fn itself (a subclass of wrapped keeps its own new.target).
    const target = new.target === wrapped ? fn : new.target;
    return runInSpan(span, parent, () => (target ? Reflect.construct(fn, args, target) : fn.apply(this, args)));
  }
  if (fn.prototype !== undefined) wrapped.prototype = fn.prototype;
  Object.defineProperty(wrapped, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapped, 'length', { value: fn.length, configurable: true });
  return wrapped as unknown as F;
}

function callAttributes(options: TracedOptions, name: string, args: unknown[]): Attributes | undefined {
  if (!options.attributesFromArgs) return options.attributes;
  try {
    return { ...options.attributes, ...options.attributesFromArgs(...args) };
  } catch (err) {
    warnOnce('api', `traced:${name}:attributesFromArgs`, `traced(${name}): attributesFromArgs threw (${errorMessage(err)}); spans start without those attributes`);
    return options.attributes;
  }
}

function callLinks(options: TracedOptions, name: string, args: unknown[]): Link[] | undefined {
  if (typeof options.links !== 'function') return options.links;
  try {
    return options.links(...args);
  } catch (err) {
    warnOnce('api', `traced:${name}:links`, `traced(${name}): links threw (${errorMessage(err)}); spans start without links`);
    return undefined;
  }
}
