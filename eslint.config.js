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
    // The product ships alone: the local environment, node agent, sample worker and scripts are the rig that tests it.
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/dev/*', '**/scripts/*', '**/test/*'],
              message: 'src/ is the product: it never imports the rig',
            },
          ],
        },
      ],
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
                '../../dev/*',
                '../../scripts/*',
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
    files: ['src/cli/dashboard/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: false, project: null },
      globals: { document: 'readonly', window: 'readonly', location: 'readonly', EventSource: 'readonly' },
    },
  },
);
