import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/** One package an instrumentation patches, from dist/bundler/modules.json (scripts/bundler-modules.mjs). */
export interface InstrumentedPackage {
  /** The instrumentation that patches it (the suffix of `@opentelemetry/instrumentation-<name>`; `http` for tracehook's route hook). */
  instrumentation: string;
  /** The package name: `pg`. */
  name: string;
  /** Whether its main export (what `require('pg')` returns) is patched. */
  main: boolean;
  /** Files inside the package it patches, relative to the package folder: `lib/client.js`. */
  files: string[];
}

let cached: readonly InstrumentedPackage[] | undefined;

/**
 * The packages and files the instrumentations patch, generated at build time from the instrumentation catalogue
 * (src/instrumentations/targets.ts and the route instrumentation) into dist/bundler/modules.json.
 * @throws Error when the file is missing or unreadable (a tracehook that was not built)
 */
export function instrumentedPackages(): readonly InstrumentedPackage[] {
  cached ??= (JSON.parse(readFileSync(join(packageRoot(), 'dist', 'bundler', 'modules.json'), 'utf8')) as { modules: InstrumentedPackage[] }).modules;
  return cached;
}

/**
 * Which bundled files to wrap: a package's main file when some instrumentation patches its main export, and every
 * file some instrumentation patches by path.
 */
export class ModuleSelection {
  private readonly main = new Set<string>();
  private readonly files = new Map<string, Set<string>>();

  /** @param packages - default: all of {@link instrumentedPackages} */
  constructor(packages: readonly InstrumentedPackage[] = instrumentedPackages()) {
    for (const p of packages) {
      if (p.main) this.main.add(p.name);
      const files = this.files.get(p.name) ?? new Set<string>();
      for (const f of p.files) files.add(f);
      this.files.set(p.name, files);
    }
  }

  /** The package names, each once. */
  get packageNames(): string[] {
    return [...this.files.keys()];
  }

  /** Whether the file `path` (relative to the folder of package `name`), the package's main file or not, is to be wrapped. */
  wants(name: string, path: string, main: boolean): boolean {
    return (main && this.main.has(name)) || this.files.get(name)?.has(path) === true;
  }

  /**
   * A regular expression (RE2-compatible, for esbuild's Go side too) that matches the path of any file inside one of
   * the packages: `…/node_modules/pg/…`; cheap to test before the exact check.
   */
  pathFilter(): RegExp {
    const names = this.packageNames.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, (c) => (c === '/' ? '[\\\\/]' : `\\${c}`)));
    return new RegExp(`[\\\\/]node_modules[\\\\/](?:${names.join('|')})[\\\\/]`);
  }
}
