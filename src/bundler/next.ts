import { ModuleSelection } from './module-list.js';

/** The part of a Next.js configuration this reads and sets (Next.js is the user's, not a dependency of tracehook). */
export interface NextConfig {
  serverExternalPackages?: string[];
  transpilePackages?: string[];
  [key: string]: unknown;
}
type NextConfigFunction = (...args: unknown[]) => NextConfig | Promise<NextConfig>;

/**
 * The Next.js helper of `@tracehook/register/next`: `export default withTracehook({ output: 'standalone' })` in
 * next.config.mjs. Adds every package an instrumentation patches (pg, ioredis, mysql2, mongodb, graphql, @grpc/grpc-js,
 * …: dist/bundler/modules.json) to `serverExternalPackages`, so Next.js leaves them out of its server bundles, under
 * Turbopack and webpack alike, and requires them from `node_modules` at run time, where the preload patches them
 * (Next.js's own list has pg, mongodb, mongoose and express, not ioredis or mysql2). The standalone output copies the
 * ones the app uses into `.next/standalone/node_modules`. Keeps the user's own entries, and leaves out a package of `transpilePackages`; a configuration function
 * (`(phase, context) => config`) is wrapped. Never throws for a configuration without `serverExternalPackages`.
 * @param config - a Next.js configuration object, or a function returning one (or a promise of one)
 * @returns the same kind of value, with `serverExternalPackages` completed
 */
export function withTracehook<T extends NextConfig | NextConfigFunction>(config: T): T {
  if (typeof config === 'function') {
    return (async (...args: unknown[]) => withTracehook(await (config as NextConfigFunction)(...args))) as T;
  }
  const { serverExternalPackages = [], transpilePackages = [] } = config as NextConfig;
  // Next.js refuses a package that is both external and transpiled: the user's transpilePackages win.
  const added = new ModuleSelection().packageNames.filter((name) => !transpilePackages.includes(name));
  return { ...config, serverExternalPackages: [...new Set([...serverExternalPackages, ...added])] };
}

export default withTracehook;
