// The custom resources of temporal.io/v1alpha1: names, schemas and the columns kubectl shows.
import type { TSchema } from '@sinclair/typebox';
import { temporalClusterConnection, temporalConnection } from './temporal-connection.ts';
import { temporalWorkerDeployment } from './temporal-worker-deployment.ts';
import { temporalWorkerOwnedResource } from './temporal-worker-owned-resource.ts';

export const GROUP = 'temporal.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description: string;
}

export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  schema: TSchema;
  printerColumns: PrinterColumn[];
  /** Cluster for a kind without a namespace; namespaced otherwise. */
  scope?: 'Cluster';
}

const ready: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Whether the Ready condition holds.',
};
const age: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since creation.',
};

export const KINDS = {
  TemporalWorkerDeployment: {
    kind: 'TemporalWorkerDeployment',
    plural: 'temporalworkerdeployments',
    singular: 'temporalworkerdeployment',
    shortNames: ['twd'],
    schema: temporalWorkerDeployment,
    printerColumns: [
      {
        name: 'Target',
        type: 'string',
        jsonPath: '.status.targetVersion.buildID',
        description: 'Build the spec asks for.',
      },
      {
        name: 'Current',
        type: 'string',
        jsonPath: '.status.currentVersion.buildID',
        description: 'Build new workflows go to.',
      },
      {
        name: 'Ramp %',
        type: 'number',
        jsonPath: '.status.targetVersion.rampPercentage',
        description: 'Share of new workflows sent to the target while it ramps.',
      },
      ready,
      age,
    ],
  },
  TemporalConnection: {
    kind: 'TemporalConnection',
    plural: 'temporalconnections',
    singular: 'temporalconnection',
    shortNames: ['tconn'],
    schema: temporalConnection,
    printerColumns: [
      { name: 'Host', type: 'string', jsonPath: '.spec.hostPort', description: 'Temporal frontend address.' },
      { ...ready, description: 'Whether the controller reached Temporal with this address and these credentials.' },
      age,
    ],
  },
  TemporalClusterConnection: {
    kind: 'TemporalClusterConnection',
    plural: 'temporalclusterconnections',
    singular: 'temporalclusterconnection',
    shortNames: ['tcconn'],
    schema: temporalClusterConnection,
    scope: 'Cluster',
    printerColumns: [
      { name: 'Host', type: 'string', jsonPath: '.spec.hostPort', description: 'Temporal frontend address.' },
      { ...ready, description: 'Whether the controller reached Temporal with this address and these credentials.' },
      age,
    ],
  },
  TemporalWorkerOwnedResource: {
    kind: 'TemporalWorkerOwnedResource',
    plural: 'temporalworkerownedresources',
    singular: 'temporalworkerownedresource',
    shortNames: ['twor'],
    schema: temporalWorkerOwnedResource,
    printerColumns: [
      {
        name: 'Worker',
        type: 'string',
        jsonPath: '.spec.workerRef.name',
        description: 'The worker deployment it attaches to.',
      },
      { name: 'Kind', type: 'string', jsonPath: '.spec.object.kind', description: 'Kind of the objects to render.' },
      { ...ready, description: 'Whether every copy is applied.' },
      age,
    ],
  },
} satisfies Record<string, KindDefinition>;

export type KindName = keyof typeof KINDS;
