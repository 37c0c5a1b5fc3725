// `node scripts/bundle.ts [DIR]`: the CLI bundled by esbuild, as the image runs it (into dist/bundle
// by default). Loading some 1,200 small modules from node_modules cost the controller more memory
// than their code: a bundle starts about 10 MiB smaller, and needs no node_modules.
//
// The layout keeps the paths the sources read at run time relative to their module true of the
// bundle too: package.json two folders up (the version), and beside the bundle protocol.json (the
// Temporal protocol) and assets/ (the dashboard's page).
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '..');
/** Where in the bundle's folder its entry point is, as src/cli/main.ts is in the repository. */
export const BUNDLE_ENTRY = 'src/cli/main.js';

/** Writes the bundle into `dir` (emptied first) and returns the path of its entry point. */
export async function bundleCli(dir: string): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  const cli = path.join(dir, path.dirname(BUNDLE_ENTRY));
  await build({
    entryPoints: [path.join(REPO, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // The commands `twc run` does not need (status, the dashboard, pino-pretty and the Kubernetes
    // client they load) stay in chunks of their own that only they load, as they are loaded
    // lazily from the sources: bundled in, their code cost `twc run` about 10 MiB.
    splitting: true,
    outdir: cli,
    // Less text to keep in memory (V8 keeps each module's source); identifiers are kept, for
    // readable stack traces. Minified names saved no more than the measurements' noise.
    minifyWhitespace: true,
    minifySyntax: true,
    // Bundled CommonJS packages call require() for Node's own modules, which ESM has not.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
    logLevel: 'warning',
  });
  cpSync(path.join(REPO, 'package.json'), path.join(dir, 'package.json'));
  cpSync(path.join(REPO, 'src/temporal/protocol.json'), path.join(cli, 'protocol.json'));
  cpSync(path.join(REPO, 'src/cli/dashboard/assets'), path.join(cli, 'assets'), { recursive: true });
  return path.join(dir, BUNDLE_ENTRY);
}

if (import.meta.main) {
  console.log(await bundleCli(path.resolve(process.argv[2] ?? path.join(REPO, 'dist/bundle'))));
}
