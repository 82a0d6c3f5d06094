/** An environment object as configuration is read from: `process.env`, or a worker's or child's `env`. */
export type Env = Record<string, string | undefined>;

/** The value of `name` with surrounding spaces removed; undefined when unset or blank. */
export function readString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** A comma-separated list, each item trimmed and lower-cased, empty items left out; `[]` when unset. */
export function readList(env: Env, name: string): string[] {
  return (readString(env, name) ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
