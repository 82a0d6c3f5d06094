// ESLint flat config: `npm run lint`. typescript-eslint's recommended rules for src/ (TypeScript), @eslint/js's
// recommended rules for the JavaScript around it (Node.js everywhere except the trace page's browser script).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.ci/node/', 'test/fixtures/node-sdk-next/node_modules/'] },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // Browser code: the trace page's script, run as a classic script with the CLI's filter functions inlined before it.
    files: ['src/cli/ui/page-script.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        ...globals.browser,
        ...Object.fromEntries(
          ['matchesTraceFilter', 'parseDurationMs', 'parseTimeMs', 'parseSpanQuery', 'spanMatchesQuery', 'traceMatchesQueries', 'criticalPath', 'compareTraces', 'rootLabel'].map((f) => [
            f,
            'readonly',
          ]),
        ),
      },
    },
  },
  {
    // Functions handed to the browser by Playwright (page.evaluate) and read back there.
    files: ['test/view-browser*.test.mjs', 'scripts/waterfall-screenshot.mjs'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', Node: 'readonly', MouseEvent: 'readonly', performance: 'readonly', PerformanceObserver: 'readonly' } },
  },
  {
    // Code about control characters (escaping them for terminals, JSON and ids) matches them on purpose.
    files: ['src/encoding/otlp-json.ts', 'scripts/bundle-id.mjs', 'test/terminal-escapes.test.mjs', 'test/unit/control-chars.test.mjs', 'test/view.test.mjs', 'test/otlp.test.mjs'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // `_name` marks a parameter or destructured key kept for its position or left out on purpose.
    files: ['**/*.{js,mjs,cjs}'],
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }] },
  },
  ...tseslint.configs.recommended.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // src/ compiles to CommonJS and loads modules lazily with require() where they are needed: a preload pays
      // at startup for every module it imports up front (test/startup-lazy-builtins.test.mjs,
      // test/instrumentations-lazy-cost.test.mjs).
      '@typescript-eslint/no-require-imports': 'off',
      // Patch wrappers are `function`s that hand the original exactly the `this` and `arguments` they received
      // (as shimmer's wrappers in OpenTelemetry's instrumentations do), and reach the wrapper's owner via `self`.
      'prefer-rest-params': 'off',
      '@typescript-eslint/no-this-alias': 'off',
      // Functions stay small enough to read at once (issue 32).
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
