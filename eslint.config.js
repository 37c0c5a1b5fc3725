import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'tools/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The pure core decides on plain data: no arrow runs from it to an adapter or the runtime.
    files: ['src/planner/**', 'src/status/**', 'src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../k8s/*',
                '../temporal/*',
                '../controller/*',
                '../runtime/*',
                '../cli/*',
                '../localenv/*',
                '../node-agent/*',
              ],
              message: 'the planner, the status mapper and the domain import only src/api and each other',
            },
            {
              group: ['@kubernetes/*', '@temporalio/*', '@grpc/*', 'node:*'],
              allowTypeImports: true,
              message: 'types only in the pure core',
            },
          ],
        },
      ],
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  {
    // The dashboard's page runs in a browser, as served: plain JavaScript, outside the TypeScript project.
    files: ['src/dashboard/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: false, project: null },
      globals: { document: 'readonly', window: 'readonly', location: 'readonly', EventSource: 'readonly' },
    },
  },
);
