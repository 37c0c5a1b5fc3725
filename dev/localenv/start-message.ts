// What `npm start` prints once the sample is Current: where everything is, and commands to copy.
// Each command is one line after its label, so a test can run exactly what a user copies.
import { LABELS } from '../../src/domain/labels.ts';

export interface StartMessageInput {
  seconds: number;
  kubeconfigPath: string;
  kubeBinary: string;
  temporalBinary: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalUiUrl?: string;
  logDir: string;
  sample: { namespace: string; name: string; build: string };
  /** The JSON merge patch that rolls out a second build of the sample. */
  rolloutPatch: object;
}

/** The label that starts each command line; the rest of the line is the command. */
export const COMMAND_LABELS = {
  watchWorkerDeployments: 'watch worker deployments:',
  watchDeployments: 'watch their Deployments: ',
  rollOut: 'roll out a build:        ',
  describeInTemporal: 'see it in Temporal:      ',
} as const;

export function startMessage(input: StartMessageInput): string {
  const kubectl = `KUBECONFIG=${input.kubeconfigPath} ${input.kubeBinary} kubectl`;
  const { namespace, name, build } = input.sample;
  // kubectl watches one resource type at a time, hence two watches.
  return `local environment and controller ready in ${input.seconds.toFixed(1)}s
kubeconfig:   ${input.kubeconfigPath}
temporal:     ${input.temporalAddress} (namespace ${input.temporalNamespace})
temporal CLI: ${input.temporalBinary}
temporal UI:  ${input.temporalUiUrl ?? 'none (the dev server runs headless)'}
logs:         ${input.logDir} (controller.log, node-agent.log, temporal.log, ...)
sample:       TemporalWorkerDeployment ${namespace}/${name} is Current at build ${build}

${COMMAND_LABELS.watchWorkerDeployments} ${kubectl} get twd -w
${COMMAND_LABELS.watchDeployments} ${kubectl} get deployments -l ${LABELS.deploymentName}=${name} -w
${COMMAND_LABELS.rollOut} ${kubectl} patch twd ${name} --type merge -p '${JSON.stringify(input.rolloutPatch)}'
${COMMAND_LABELS.describeInTemporal} ${input.temporalBinary} worker deployment describe --address ${input.temporalAddress} --namespace ${input.temporalNamespace} --name ${namespace}/${name}
Ctrl-C stops everything.`;
}
