import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { FLOORS, PURE_ROOMS } from './test/support/floors.ts';

/**
 * Every import runs down: a file of a room of src/ imports only its own room and the rooms of lower
 * floors (test/support/floors.ts; test/unit/layers.test.ts checks every import, type-only and
 * dynamic ones too, and that no file imports itself back), never the rig (dev/, scripts/, test/):
 * the product ships alone; and the pure core takes libraries as types only. One block per depth of
 * folder, since a relative import climbs one `../` per folder.
 */
const floorRules = Object.entries(FLOORS).flatMap(([room, floor]) => {
  const allowed = Object.keys(FLOORS).filter((other) => other === room || FLOORS[other] < floor);
  return [1, 2, 3].map((depth) => ({
    files: [`src/${room}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./){${depth}}(?!(${allowed.join('|')})/)`,
              message: `${room} (floor ${floor}) imports only ${allowed.join(', ')} of src/, and nothing outside it: every import runs down (test/support/floors.ts)`,
            },
            ...(PURE_ROOMS.includes(room)
              ? [
                  {
                    group: ['@kubernetes/*', '@temporalio/*', '@grpc/*', 'node:*'],
                    allowTypeImports: true,
                    message: 'types only in the pure core',
                  },
                ]
              : []),
          ],
        },
      ],
    },
  }));
});

export default tseslint.config(
  { ignores: ['node_modules/', 'tools/', '.stryker-tmp/', 'reports/', 'dist/'] },
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
  ...floorRules,
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
