import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { logDebug } from '../../diag/logger.js';
import { satisfiesSimpleRange } from '../version-range.js';

/**
 * The instrumentations whose library publishes TracingChannels from a known release on: from it on, tracehook
 * traces the library from its channels ({@link ChannelInstrumentation}), bundled or not; before it, the
 * patch-based @opentelemetry/instrumentation-<name> does, and only there (its supported versions are narrowed to
 * `<since`), so no call gets two spans. Listed in docs/channels.md.
 */
export const NATIVE_CHANNELS: Readonly<Record<string, { readonly since: string }>> = {
  // ioredis v5.11.0 (redis/ioredis#2089): ioredis:command and ioredis:connect; ioredis:batch in 6.
  ioredis: { since: '5.11.0' },
  // mysql2 v3.20.0 (sidorares/node-mysql2#4178): mysql2:query, :execute, :connect, :pool:connect.
  mysql2: { since: '3.20.0' },
};

/**
 * Whether release `version` of the library of instrumentation `name` publishes its channels; false for a name
 * without channels, and for a version the simple range reader cannot decide (a prerelease): patched then.
 */
export function publishesChannels(name: string, version: unknown): boolean {
  const since = NATIVE_CHANNELS[name]?.since;
  return since !== undefined && satisfiesSimpleRange(version, `>=${since}`) === true;
}

/**
 * Narrows the supported versions of a patch-based instrumentation whose library has channels to the releases
 * before them, in place (`>=2.0.0 <7` becomes `>=2.0.0 <7 <5.11.0`): its module definitions are read when a
 * module loads, so this holds for every copy of the library the app loads, in any order. Relies on
 * `InstrumentationBase#_modules` (@opentelemetry/instrumentation's Node.js platform: the definitions its hooks use;
 * `getModuleDefinitions()` makes new ones); without it, says so at DEBUG level and leaves the ranges.
 * @param instrumentation - an @opentelemetry/instrumentation `InstrumentationBase` (anything else is left alone)
 */
export function narrowToUnchanneled(name: string, instrumentation: unknown): void {
  const since = NATIVE_CHANNELS[name]?.since;
  if (since === undefined) return;
  const definitions = (instrumentation as { _modules?: unknown })?._modules;
  if (!Array.isArray(definitions)) {
    logDebug('instrumentations', `${name}: InstrumentationBase#_modules not found; its patch also applies from ${since} on, where its channels trace it too`);
    return;
  }
  type Versioned = { supportedVersions?: string[]; files?: Versioned[] };
  const narrow = (v: Versioned) => {
    if (Array.isArray(v.supportedVersions)) v.supportedVersions = v.supportedVersions.map((range) => `${range === '*' ? '' : `${range} `}<${since}`);
  };
  for (const definition of definitions as Versioned[]) {
    narrow(definition);
    for (const file of definition.files ?? []) narrow(file);
  }
}

/** Package folder → whether its release publishes channels: read once per folder, not per file the package loads. */
const byFolder = new Map<string, boolean>();

/**
 * Whether the copy of the library of instrumentation `name` that `file` belongs to (`…/node_modules/<pkg>/…`)
 * publishes its channels, by the version in its package.json; false when that cannot be read (patched then).
 */
export function fileHasChannels(name: string, pkg: string, file: string): boolean {
  if (NATIVE_CHANNELS[name] === undefined) return false;
  const marker = join('node_modules', pkg);
  const at = file.lastIndexOf(marker);
  if (at === -1) return false;
  const folder = file.slice(0, at + marker.length);
  let has = byFolder.get(folder);
  if (has === undefined) {
    try {
      has = publishesChannels(name, (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: unknown }).version);
    } catch {
      has = false;
    }
    byFolder.set(folder, has);
  }
  return has;
}
