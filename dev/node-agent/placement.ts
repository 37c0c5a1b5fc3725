// Which of the agent's nodes a Pod nobody scheduled may run on, judged by two of kube-scheduler's
// filters: the Pod's nodeSelector against the node's labels, and its tolerations against the
// node's NoSchedule and NoExecute taints. Enough for the environment to keep a Pod of one node pool
// off another's node, and to leave a Pod that fits nowhere Pending and saying why. Pure.
import type { V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';

export interface LocalNode {
  name: string;
  labels: Record<string, string>;
  taints: V1Taint[];
}

export type Placement = { node: string } | { unschedulable: string };

export function placePod(pod: V1Pod, nodes: readonly LocalNode[]): Placement {
  const selector = pod.spec?.nodeSelector ?? {};
  const tolerations = pod.spec?.tolerations ?? [];
  const reasons = new Map<string, number>();
  for (const node of nodes) {
    const reason = Object.entries(selector).some(([key, value]) => node.labels[key] !== value)
      ? "didn't match Pod's node affinity/selector"
      : untolerated(node.taints, tolerations);
    if (!reason) return { node: node.name };
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  // The scheduler's own wording, so that what the controller relays reads as on a real cluster.
  const counted = [...reasons].map(([reason, count]) => `${count} node(s) ${reason}`).sort();
  return { unschedulable: `0/${nodes.length} nodes are available: ${counted.join(', ')}.` };
}

function untolerated(taints: readonly V1Taint[], tolerations: readonly V1Toleration[]): string | undefined {
  const taint = taints.find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerations.some((o) => tolerates(o, t)),
  );
  return taint && `had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

function tolerates(toleration: V1Toleration, taint: V1Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  // An empty key with Exists tolerates every taint.
  if (toleration.key && toleration.key !== taint.key) return false;
  return toleration.operator === 'Exists' ? true : (toleration.value ?? '') === (taint.value ?? '');
}
