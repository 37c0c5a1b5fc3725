// A pool's Pod template: spec.template with what the pool runs differently
// (spec.pools[].template) laid over it, container by container. It is part of the build, as the
// template is: Temporal versions the worker deployment, not a pool, so one pool's new code is a
// new build of every pool. Pure.
import type { V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Pool } from '../api/temporal-worker-deployment.ts';

type Overlay = NonNullable<Pool['template']>;
type ContainerOverlay = NonNullable<NonNullable<Overlay['spec']>['containers']>[number];

export function poolPodTemplate(template: V1PodTemplateSpec, pool: Pool | undefined): V1PodTemplateSpec {
  const overlay = pool?.template;
  if (!overlay) return template;
  const spec = structuredClone(template.spec ?? { containers: [] });
  const serviceAccountName = overlay.spec?.serviceAccountName;
  if (serviceAccountName) spec.serviceAccountName = serviceAccountName;
  spec.containers = spec.containers.map((container) => {
    const over = overlay.spec?.containers?.find((c) => c.name === container.name);
    return over ? overlaid(container, over) : container;
  });
  const labels = overlay.metadata?.labels;
  return {
    ...(template.metadata || labels
      ? {
          metadata: {
            ...template.metadata,
            ...(labels ? { labels: { ...template.metadata?.labels, ...labels } } : {}),
          },
        }
      : {}),
    spec,
  };
}

/** What of the pools' templates the build ID covers beside spec.template, by pool name; undefined when no pool has one. */
export function poolOverlays(pools: readonly Pool[] | undefined): Record<string, Overlay> | undefined {
  const overlays = (pools ?? []).flatMap((p) => (p.template ? [[p.name, p.template] as const] : []));
  return overlays.length > 0 ? Object.fromEntries(overlays) : undefined;
}

/** A variable of the pool replaces the template's of the same name where it stands, so `$(VAR)` references keep their order. */
function overlaid(container: V1Container, over: ContainerOverlay): V1Container {
  const env = over.env;
  const replaced = (container.env ?? []).map((e) => env?.find((o) => o.name === e.name) ?? e);
  const added = (env ?? []).filter((o) => !container.env?.some((e) => e.name === o.name));
  return {
    ...container,
    ...(over.image ? { image: over.image } : {}),
    ...(env ? { env: [...replaced, ...added] } : {}),
    ...(over.resources ? { resources: over.resources } : {}),
  };
}
