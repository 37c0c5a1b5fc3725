// The words the owned-resource renderer (k8s/owned-resource-copies.ts) and the planner
// (planner/owned-resources.ts) share: which Deployment a copy is for, and the copy as rendered.

/** One Kubernetes Deployment of one build: what its copies are made for. */
export interface CopyTarget {
  deployment: string;
  uid: string;
  buildId: string;
  pool?: string;
  /** The pool's task queue, where pools exist. */
  taskQueue?: string;
  /** spec.replicas; undefined when unset. */
  replicas?: number;
}

export interface CopyOf {
  twor: string;
  kind: string;
  target: CopyTarget;
  /** The copy's name. */
  name: string;
}

export type RenderedCopy = CopyOf & ({ object: Record<string, unknown>; hash: string } | { refused: string });
