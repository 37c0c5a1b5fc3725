// `twc status [NAME]`: reads the worker deployments of a namespace with what belongs to them
// (their Deployments, the owned resources naming them, their events) through informers, prints
// them once, or with --watch again at every change the watches bring, in place on a terminal.
import type { CoreV1Event, V1Deployment } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { GROUP, KINDS, VERSION } from '../../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../api/temporal-worker-owned-resource.ts';
import { LABELS } from '../../domain/labels.ts';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import { defaultClusterAccess, kubeconfigAccess } from '../../runtime/kube/cluster-access.ts';
import { SelfHealingInformer, type KubernetesObject } from '../../runtime/informer.ts';
import { contextNamespace } from '../kube-context.ts';
import { renderStatus } from './render.ts';
import { type OUTPUTS, statusView, type WorkerDeploymentView } from './view.ts';

export interface StatusOptions {
  namespace?: string;
  allNamespaces?: boolean;
  watch?: boolean;
  output?: (typeof OUTPUTS)[number];
  kubeconfig?: string;
}

export interface Terminal {
  write(text: string): void;
  /** Colours, symbols and redrawing in place. */
  isTTY: boolean;
}

/** Clears the screen and moves to its top: each frame of --watch replaces the last. */
const REDRAW = '\u001b[H\u001b[2J';
/** Changes arrive in bursts (a rollout step writes several objects): one frame per burst. */
const FRAME_MS = 100;

export class StatusError extends Error {
  override name = 'StatusError';
}

/** Resolves when done: at once without --watch, on `stop` with it. */
export async function showStatus(
  name: string | undefined,
  options: StatusOptions,
  terminal: Terminal,
  stop: AbortSignal,
): Promise<void> {
  const access = options.kubeconfig ? kubeconfigAccess({ file: options.kubeconfig }) : defaultClusterAccess();
  const namespace = options.allNamespaces ? undefined : (options.namespace ?? contextNamespace(options.kubeconfig));
  const api = new KubernetesApi({ access });
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  let changed = (): void => {};
  const informer = <T extends KubernetesObject>(
    path: string,
    selectors: { labelSelector?: string; fieldSelector?: string } = {},
  ) => new SelfHealingInformer<T>({ api, path, ...selectors, onEvent: () => changed() });
  const workerDeployments = informer<TemporalWorkerDeployment>(
    `/apis/${GROUP}/${VERSION}${scope}/${KINDS.TemporalWorkerDeployment.plural}`,
    name ? { fieldSelector: `metadata.name=${name}` } : {},
  );
  const informers = {
    workerDeployments,
    deployments: informer<V1Deployment>(`/apis/apps/v1${scope}/deployments`, {
      labelSelector: name ? `${LABELS.deploymentName}=${name}` : LABELS.deploymentName,
    }),
    ownedResources: informer<TemporalWorkerOwnedResource>(
      `/apis/${GROUP}/${VERSION}${scope}/${KINDS.TemporalWorkerOwnedResource.plural}`,
    ),
    events: informer<CoreV1Event>(`/api/v1${scope}/events`, {
      fieldSelector: `involvedObject.kind=TemporalWorkerDeployment${name ? `,involvedObject.name=${name}` : ''}`,
    }),
  };
  const all = Object.values(informers);
  try {
    await Promise.all(all.map((i) => i.start()));
    const views = (): WorkerDeploymentView[] =>
      [...informers.workerDeployments.list()]
        .sort((a, b) =>
          `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
        )
        .map((twd) => {
          const at = twd.metadata.namespace ?? '';
          return statusView({
            workerDeployment: twd,
            deployments: [...informers.deployments.list(at)],
            ownedResources: [...informers.ownedResources.list(at)],
            events: [...informers.events.list(at)],
          });
        });
    const frame = (): string => {
      const shown = views();
      if (name && shown.length === 0) throw new StatusError(`worker deployment ${namespace ?? ''}/${name} not found`);
      if (options.output === 'json')
        return `${JSON.stringify(name ? shown[0] : { items: shown }, null, options.watch ? 0 : 2)}\n`;
      if (options.output === 'yaml')
        return `${options.watch ? '---\n' : ''}${stringify(name ? shown[0] : { items: shown })}`;
      return renderStatus(shown, { color: terminal.isTTY && !process.env.NO_COLOR, now: new Date() });
    };
    const redraw = terminal.isTTY && !options.output;
    let last = frame();
    terminal.write(`${options.watch && redraw ? REDRAW : ''}${last}`);
    if (!options.watch) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      changed = () => {
        timer ??= setTimeout(() => {
          timer = undefined;
          try {
            const next = frame();
            // Ages change every second; a frame is drawn for a change of the objects only.
            if (next === last) return;
            last = next;
            terminal.write(`${redraw ? REDRAW : ''}${next}`);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        }, FRAME_MS);
      };
      stop.addEventListener('abort', () => resolve(), { once: true });
    });
    clearTimeout(timer);
  } finally {
    await Promise.all(all.map((i) => i.stop()));
    api.close();
  }
}
