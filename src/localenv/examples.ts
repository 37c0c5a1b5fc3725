// What the manifests of examples/ need from the local environment: the Temporal namespaces they
// name, created with the dev server so that every example runs unchanged on `npm start`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const EXAMPLES_DIR = path.join(import.meta.dirname, '../../examples');

/** The TemporalConnection name the examples refer to. */
export const EXAMPLE_CONNECTION = 'temporal';

/** Every spec.workerOptions.temporalNamespace of the worker deployments in `dir`, sorted, once each. */
export function exampleTemporalNamespaces(dir = EXAMPLES_DIR): string[] {
  const found = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const document of parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))) {
      const object = document.toJS() as { spec?: { workerOptions?: { temporalNamespace?: unknown } } } | null;
      const namespace = object?.spec?.workerOptions?.temporalNamespace;
      if (typeof namespace === 'string') found.add(namespace);
    }
  }
  return [...found].sort();
}
