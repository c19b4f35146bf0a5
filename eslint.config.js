/**
 * ESLint (flat config): a modest baseline (@eslint/js and typescript-eslint recommended, not
 * type-checked, so it stays fast) and the layer rules of docs/architecture.md ("Layer rules"),
 * enforced by eslint-plugin-boundaries. test/unit/layering.test.ts proves each layer rule fails
 * on a forbidden import.
 */
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** The layers: every source file belongs to the first element whose folder holds it. */
const elements = [
  { type: 'contract', pattern: 'contract' },
  { type: 'preload', pattern: 'preload' },
  { type: 'core', pattern: 'main/core' },
  { type: 'adapter', pattern: 'main/adapters/*', capture: ['adapter'] },
  { type: 'main-entry', pattern: 'main' },
  { type: 'feature', pattern: 'renderer/src/features/*', capture: ['feature'] },
  { type: 'renderer-shared', pattern: 'renderer/src/{components,state,api}' },
  { type: 'renderer', pattern: 'renderer' },
  { type: 'test', pattern: 'test' },
  { type: 'bench', pattern: 'bench' },
  { type: 'tooling', pattern: '{scripts,bin}' },
].map((element) => ({ ...element, partialMatch: false }));
/** The build and test runners' configs at the root, so the rules see them too. */
const files = [{ category: 'root-config', pattern: '*.{ts,js,mjs}' }];

const anyRenderer = { element: { type: ['feature', 'renderer-shared', 'renderer'] } };
const electronModules = { module: { origin: 'external', source: ['electron', 'electron-store', '@electron/*'] } };

/** Default allow; each policy names what a layer must not import (the last matching policy wins). */
const policies = [
  {
    from: { element: { type: 'contract' } },
    disallow: { to: { module: { origin: '*' } } },
    message: '{{dependency.source}}: contract/ imports only zod and other contract/ files (it is shared by main and the renderer)',
  },
  {
    from: { element: { type: 'contract' } },
    allow: [{ to: { element: { type: 'contract' } } }, { to: { module: { origin: 'external', source: 'zod' } } }],
  },
  {
    from: { element: { type: 'core' } },
    disallow: [electronModules, { element: { type: ['adapter', 'main-entry', 'preload'] } }, anyRenderer].map((to) => ({ to })),
    message: '{{dependency.source}}: main/core is plain Node: no electron, electron-store, adapters, preload or renderer',
  },
  {
    from: { element: { type: 'adapter' } },
    disallow: { to: { element: { type: 'adapter', captured: { adapter: '!shared' } } } },
    message: '{{dependency.source}}: an adapter never imports another adapter (what two share lives in main/adapters/shared)',
  },
  {
    from: { element: { type: 'feature' } },
    disallow: { to: { element: { type: 'feature', fileInternalPath: '!index.ts' } } },
    message: "{{dependency.source}}: a renderer feature imports another feature only through that feature's index.ts",
  },
  {
    from: { element: { type: 'renderer-shared' } },
    disallow: { to: { element: { type: 'feature' } } },
    message: '{{dependency.source}}: renderer/src/components, state and api are shared by the features and never import one',
  },
  {
    from: anyRenderer,
    disallow: [{ element: { type: ['core', 'adapter', 'main-entry', 'preload'] } }, electronModules, { module: { origin: 'core' } }].map((to) => ({ to })),
    message: '{{dependency.source}}: the renderer never imports main/, preload/, electron or Node built-ins (it talks through contract/client.ts)',
  },
  {
    from: { element: { type: ['preload'] } },
    disallow: { to: [{ element: { type: ['core', 'adapter', 'main-entry'] } }, anyRenderer] },
    message: '{{dependency.source}}: preload/ exposes the contract and imports nothing from main/ or the renderer',
  },
  {
    // Any file, known layer or not (scripts, root configs); test/ importing itself is internal to it.
    disallow: { to: { element: { type: 'test' } } },
    message: '{{dependency.source}}: nothing outside test/ imports from test/',
  },
  {
    // The benchmarks drive the same fixture servers as the tests (and the browser ones the same built app, through the e2e helpers).
    from: { element: { type: 'bench' } },
    allow: { to: { element: { type: 'test' }, file: { path: 'test/{fixtures,support,e2e/support}/**' } } },
  },
];

/** Packages only the tests use (devDependencies): shipped code must not import them. (ajv is a dependency: `switchboard check` validates tool schemas with its 2020-12 build, #16.) */
const testOnlyPackages = {
  group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', '@modelcontextprotocol/server', '@modelcontextprotocol/server-*', '@modelcontextprotocol/node', 'vitest', '@playwright/test', 'fast-check', 'ajv-formats'],
  message: 'a test-only package (devDependencies): shipped code uses @modelcontextprotocol/client, @cfworker/json-schema (and ajv only for check\'s schema validation)',
};

export default defineConfig(
  { ignores: ['out/', 'dist/', 'node_modules/', 'test-results/', 'playwright-report/', '.tmp/', '.scratch/', 'test/.probe/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Matching control characters is the point wherever this code writes one in a pattern:
      // hostile input is shown with its invisible characters named or stripped.
      'no-control-regex': 'off',
    },
  },
  {
    ignores: ['renderer/**', 'contract/**'],
    languageOptions: { globals: globals.node },
  },
  {
    // Shared by main and the renderer: only what both have.
    files: ['contract/**'],
    languageOptions: { globals: globals['shared-node-browser'] },
  },
  {
    // Tests read untyped JSON off the wire and poke at internals.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Playwright reads a test's fixtures from its first parameter, so `async ({}, testInfo)` is its idiom.
    files: ['test/e2e/**'],
    rules: { 'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }] },
  },
  {
    files: ['main/**', 'contract/**', 'preload/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [testOnlyPackages] }] },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // Off for now: it reports 19 places, most of them memos keyed on a store's version on purpose
      // (a dependency the rule cannot see); each needs a look before it becomes an error.
      'react-hooks/exhaustive-deps': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            testOnlyPackages,
            // The one exception: MCP Apps' host side (the app bridge speaks to a sandboxed frame, not to a server).
            { regex: '^@modelcontextprotocol/(?!ext-apps/app-bridge$)', message: 'the renderer reaches servers only through main (contract/client.ts), never with an MCP SDK of its own; of MCP Apps it uses only the host side, @modelcontextprotocol/ext-apps/app-bridge' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'boundaries/files': files,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.json'] } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, checkUnknownLocals: true, policies }],
    },
  },
);
