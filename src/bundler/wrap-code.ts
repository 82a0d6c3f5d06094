import type { BundledModuleInfo } from './channel.js';
import { MODULE_LOAD_CHANNEL } from './channel.js';

/** The facts a wrapped module publishes (the `esm` flag only chooses the wrapper). */
type Facts = Pick<BundledModuleInfo, 'name' | 'version' | 'path' | 'main'>;

/** `name`, `version`, `path`, `main` as an object literal's properties, from build-time values only (JSON-quoted). */
function factsCode(info: Facts): string {
  return `name:${JSON.stringify(info.name)},version:${JSON.stringify(info.version ?? null)},path:${JSON.stringify(info.path)},main:${info.main}`;
}

/**
 * The source of a CommonJS module of an instrumented package, wrapped for a bundle: the module's own code runs first,
 * unchanged, inside a function (so a top-level `return` still ends only that code); then, when the preload subscribes
 * to {@link MODULE_LOAD_CHANNEL}, its exports and facts are published and `module.exports` becomes the message's
 * `module` (which the preload may have patched or replaced). Without a subscriber it costs one `hasSubscribers` check.
 * @param source - the file's text as on disk
 * @param info - build-time facts of the file (from its package.json)
 * @returns JavaScript for the bundler to compile in place of the file
 */
export function wrapCommonJs(source: string, info: Facts): string {
  // A `#!` line is valid only at the very start of a file: inside the function it becomes a comment.
  const body = source.startsWith('#!') ? `//${source}` : source;
  // One line before the body, so the module's lines keep their numbers but one.
  return (
    `(function () {\n${body}\n}).call(this);\n` +
    `{const c=(typeof process==="object"&&process.getBuiltinModule?.("node:diagnostics_channel")||require("node:diagnostics_channel")).channel(${JSON.stringify(MODULE_LOAD_CHANNEL)});` +
    `if(c.hasSubscribers){const m={${factsCode(info)},module:module.exports};c.publish(m);module.exports=m.module;}}\n`
  );
}

/**
 * The source of a module that stands in for an ES module of an instrumented package: it re-exports every binding of
 * the original (imported under `originalSpecifier`, which the plugin resolves to the file's own text) and, when the
 * preload subscribes, publishes a view of the namespace: a null-prototype object tagged `Module` holding each export,
 * as import-in-the-middle hands an ES module to an instrumentation. A patch that changes the objects (a class's
 * prototype, a function's properties) takes effect; a binding the patch replaces in the view does not reach importers.
 * @param originalSpecifier - how to import the original file from the wrapper (bundler-specific, e.g. a namespace prefix)
 * @param info - build-time facts of the file
 * @param hasDefault - whether the original has a default export ({@link hasDefaultExport}): `export *` leaves it out
 */
export function wrapEsModule(originalSpecifier: string, info: Facts, hasDefault: boolean): string {
  const from = JSON.stringify(originalSpecifier);
  return [
    `import * as __tracehook_ns from ${from};`,
    `import { channel as __tracehook_channel } from "node:diagnostics_channel";`,
    `export * from ${from};`,
    hasDefault ? `export { default } from ${from};` : '',
    `{const c=__tracehook_channel(${JSON.stringify(MODULE_LOAD_CHANNEL)});if(c.hasSubscribers){` +
      `c.publish({${factsCode(info)},module:Object.assign(Object.create(null,{[Symbol.toStringTag]:{value:"Module"}}),__tracehook_ns)});}}`,
    '',
  ].join('\n');
}

/**
 * Whether an ES module's text declares a default export (`export default`, `as default` in an export list, or
 * `export { default } from`). Text only, no parse: a false positive makes the bundler report a missing export at
 * build time, never a wrong bundle.
 */
export function hasDefaultExport(source: string): boolean {
  return /\bexport\s+default\b/.test(source) || /\bexport\s*\{[^}]*\bdefault\b[^}]*\}/.test(source);
}

/**
 * Whether `source`, in a file its package marks CommonJS, is still written as an ES module (a package's `module`
 * build with `.js` files and no `"type": "module"`): a top-level `import … from`, `export` statement.
 */
export function looksLikeEsModule(source: string): boolean {
  return /^\s*(?:export\s+(?:\{|\*|default\b|const\b|let\b|var\b|function\b|class\b|async\b)|import\s+[\w*{][^;]*?\bfrom\s*['"])/m.test(source);
}
