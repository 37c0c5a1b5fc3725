// What the containers of a namespace's Pods printed: the node agent writes each image-run
// container's output to the environment's pod log directory (dev/node-agent/image-container.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedEnvironment } from './environment.ts';

/** The last 4,000 characters of each Pod's output in `namespace`, headed by its file's name. */
export function podLogs(namespace: string): string {
  const dir = sharedEnvironment().podLogDir;
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name.startsWith(`${namespace}_`))
    .map((entry) => `--- ${entry.name}\n${readFileSync(path.join(dir, entry.name), 'utf8').slice(-4000)}`)
    .join('\n');
}
