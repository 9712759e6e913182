import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { moduleBoundaries } from './scripts/eslint/module-boundaries.js';

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'bench/results/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node, ...globals.browser },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Fastify handlers are async by convention whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Server modules meet only through their public faces (server/modules/<m>/index.ts): nothing
    // imports another module's repository or internals (issue 17). Tests and the test helpers may
    // reach inside (they seed tables and check invariants directly).
    files: ['server/**/*.ts'],
    ignores: ['**/*.test.ts', 'server/testing/**'],
    plugins: { local: { rules: { 'module-boundaries': moduleBoundaries } } },
    rules: { 'local/module-boundaries': 'error' },
  },
  {
    // The browser takes the API contract's types, never its values: a value import brings zod into
    // the client bundle, and zod compiles its parsers with `new Function`, which the site's
    // Content-Security-Policy refuses. Shared values live in zod-free files of common/.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/common/api/*', '**/common/api'],
              allowTypeImports: true,
              message: 'Import types only from the API contract (zod stays out of the browser).',
            },
            { group: ['zod', 'zod/*'], message: 'zod stays out of the browser bundle.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
