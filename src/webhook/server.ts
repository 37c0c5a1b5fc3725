// The validating webhook the API server calls for TemporalWorkerOwnedResources: HTTPS with the
// serving certificate its ServingCertificates give it, swapped in when renewed without a restart
// or a dropped connection, AdmissionReview v1 in and out. The verdict is
// owned-resource-admission.ts's; this file asks discovery and SubjectAccessReviews for its facts.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { AUTOSCALER_KINDS, copyAccount } from '../domain/owned-resources.ts';
import type { ServiceAccountRef } from '../domain/token-policy.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { serviceAccountUser } from '../k8s/cluster-client.ts';
import { ApiResources, KindNotServedError } from '../k8s/api-resources.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { BodyTooLargeError, readBody } from '../runtime/request-body.ts';
import {
  type AccessFacts,
  accessVerdict,
  changesCopies,
  COPY_VERBS,
  objectProblems,
  type Operation,
  replicaFightWarnings,
  userVerb,
  type Verdict,
} from './owned-resource-admission.ts';
import type { RequestHandler } from '../runtime/http-server.ts';
import type { ServingCertificates } from './serving-certificates.ts';

export const OWNED_RESOURCE_WEBHOOK_PATH = '/validate-temporal-io-v1alpha1-temporalworkerownedresource';

/**
 * How long a right, once allowed (the author's, or the copies' ServiceAccount's on a resource), is
 * taken as read; a denial is asked again every time. The API server's own webhook authorizer keeps
 * an allowed answer five minutes.
 */
const RIGHTS_MS = 60_000;
/** Rights remembered at most: past it, those older than RIGHTS_MS go. */
const MAX_RIGHTS_REMEMBERED = 10_000;
/** An AdmissionReview of one TemporalWorkerOwnedResource (and its old version) fits many times over; the API server's own limit on an object is 1.5 MiB. */
export const MAX_ADMISSION_REVIEW_BYTES = 1024 * 1024;
/** The API server gives a webhook 10 seconds by default: a request still arriving after that is no API server's. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * The webhook's own budget of Kubernetes requests (access reviews, discovery): any Pod can call
 * the webhook, and each call costs several; a flood waits here, not on the API server.
 */
export const WEBHOOK_KUBERNETES_RATE = { perSecond: 20, burst: 40 };

export interface WebhookOptions {
  bindAddress: { host?: string; port: number };
  certificates: ServingCertificates;
  api: KubernetesApi;
  bannedKinds: readonly string[];
  log: Logger;
  /** The ServiceAccount copies are written as where a twor names none (--owned-resources-service-account). */
  ownedResourcesServiceAccount?: string | undefined;
  /** Served on the same port and certificate (the external metrics API): asks for client certificates. */
  alsoServe?: RequestHandler;
  /** A request not received whole within this long is answered 408 (default 10 s), by twice this long at most. */
  requestTimeoutMs?: number;
}

export interface RunningWebhook {
  port: number;
  close(): Promise<void>;
}

interface AdmissionRequest {
  uid: string;
  operation: Operation;
  namespace?: string;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: TemporalWorkerOwnedResource | null;
  oldObject?: TemporalWorkerOwnedResource | null;
}

export async function startWebhook(options: WebhookOptions): Promise<RunningWebhook> {
  const renewals: { server?: Server } = {};
  const first = await options.certificates.start((pair) => renewals.server?.setSecureContext(pair));
  const resources = new ApiResources(options.api);
  const allowedAt = new Map<string, number>();
  // A client certificate is asked for, never required: the API server calls the webhook without one.
  const clientCertificates = options.alsoServe ? { requestCert: true, rejectUnauthorized: false } : {};
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node looks for requests past their time every connectionsCheckingInterval (30 s by default),
  // waking the process each time whether or not a connection is open: once per timeout answers a
  // late request by twice its timeout, and an idle controller wakes 6 times a minute for it, not 24.
  const timeouts = { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: requestTimeout };
  const server: Server = createServer({ ...first, ...clientCertificates, ...timeouts }, (request, response) => {
    if (options.alsoServe?.(request, response)) return;
    if (
      request.method !== 'POST' ||
      URL.parse(request.url ?? '/', 'https://host')?.pathname !== OWNED_RESOURCE_WEBHOOK_PATH
    ) {
      response.writeHead(404).end('not found\n');
      return;
    }
    readBody(request, MAX_ADMISSION_REVIEW_BYTES).then(
      (body) => answer(body),
      (error: unknown) => {
        // No `Connection: close`: the server drops the rest of the body as it comes (within the
        // request timeout), so a caller still sending reads the 413 instead of a broken pipe.
        if (error instanceof BodyTooLargeError) response.writeHead(413).end(`${error.message}\n`);
        else request.destroy();
      },
    );
    const answer = (body: Buffer): void => {
      let review: { apiVersion?: string; kind?: string; request?: AdmissionRequest };
      try {
        review = JSON.parse(body.toString('utf8')) as typeof review;
        if (typeof review.request?.uid !== 'string' || !review.request.uid) throw new Error('no request.uid');
      } catch (error) {
        response.writeHead(400).end(`not an AdmissionReview: ${errorMessage(error)}\n`);
        return;
      }
      const admission = review.request;
      judge(options, { resources, allowedAt }, admission)
        .catch((error: unknown): Verdict => {
          options.log.error({ error: errorMessage(error) }, 'the webhook could not judge a request');
          return { allowed: false, message: `the webhook could not judge it: ${errorMessage(error)}` };
        })
        .then(
          (verdict) => {
            response.writeHead(200, { 'Content-Type': 'application/json' }).end(
              JSON.stringify({
                apiVersion: 'admission.k8s.io/v1',
                kind: 'AdmissionReview',
                response: {
                  uid: admission.uid,
                  allowed: verdict.allowed,
                  ...(verdict.allowed
                    ? verdict.warnings.length > 0
                      ? { warnings: verdict.warnings }
                      : {}
                    : { status: { code: 403, reason: 'Forbidden', message: verdict.message } }),
                },
              }),
            );
          },
          () => {},
        );
    };
  });
  renewals.server = server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.bindAddress.port, options.bindAddress.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        void options.certificates.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface JudgeState {
  resources: ApiResources;
  /** When a right was last found allowed: the author's per request attributes, the copies' ServiceAccount's every verb per account/group/resource. */
  allowedAt: Map<string, number>;
}

async function judge(options: WebhookOptions, state: JudgeState, request: AdmissionRequest): Promise<Verdict> {
  const { resources } = state;
  const twor = request.object ?? request.oldObject;
  if (!twor) return { allowed: false, message: 'the request carries no TemporalWorkerOwnedResource' };
  if (!changesCopies(request.operation, twor, request.oldObject ?? undefined)) return { allowed: true, warnings: [] };
  const problems = objectProblems(request.operation, twor, request.oldObject ?? undefined, options.bannedKinds);
  if (problems.length > 0) return { allowed: false, message: problems.join('; ') };
  const { apiVersion, kind } = twor.spec.object;
  const namespace = request.namespace ?? twor.metadata.namespace ?? '';
  const facts: AccessFacts = { operation: request.operation, kind, apiVersion, namespace };
  try {
    const served = await resources.resourceOf(apiVersion, kind);
    facts.served = { namespaced: served.namespaced, resource: served.resource };
  } catch (error) {
    if (!(error instanceof KindNotServedError)) throw error;
    return accessVerdict(facts);
  }
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  const attributes = (verb: string) => ({ namespace, verb, group, resource: facts.served?.resource ?? '' });
  const verb = userVerb(request.operation);
  const { username = '', uid, groups, extra } = request.userInfo;
  const userKey = JSON.stringify({ username, uid, groups, extra, ...attributes(verb) });
  let allowed = recentlyAllowed(state.allowedAt, userKey);
  if (!allowed) {
    const user = await options.api.create<{ status?: { allowed?: boolean } }>(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: username, uid, groups, extra, resourceAttributes: attributes(verb) },
      },
    );
    allowed = user.status?.allowed === true;
    if (allowed) rememberAllowed(state.allowedAt, userKey);
  }
  facts.user = { name: username, allowed, verb };
  const account = copyAccount(
    { namespace, serviceAccountName: twor.spec.serviceAccountName },
    options.ownedResourcesServiceAccount,
  );
  // A twor may always go: none is written then.
  if ('missing' in account)
    return request.operation === 'DELETE' ? accessVerdict(facts) : { allowed: false, message: account.missing };
  const verdict = await accountVerdict(options, state, facts, account, attributes);
  if (!verdict.allowed || request.operation === 'DELETE') return verdict;
  // Only an autoscaler can fight the worker deployment's replica counts: nothing else reads it.
  if (!AUTOSCALER_KINDS.includes(kind)) return verdict;
  return {
    ...verdict,
    warnings: [
      ...verdict.warnings,
      ...replicaFightWarnings(kind, await workerDeployment(options, namespace, twor.spec.workerRef.name)),
    ],
  };
}

function recentlyAllowed(allowedAt: Map<string, number>, key: string): boolean {
  const at = allowedAt.get(key);
  return at !== undefined && Date.now() - at <= RIGHTS_MS;
}

function rememberAllowed(allowedAt: Map<string, number>, key: string): void {
  if (allowedAt.size >= MAX_RIGHTS_REMEMBERED)
    for (const [known, at] of allowedAt) if (Date.now() - at > RIGHTS_MS) allowedAt.delete(known);
  allowedAt.set(key, Date.now());
}

/**
 * The worker deployment a twor names, for its replica counts; undefined when it does not exist or
 * cannot be read (a warning is not worth refusing a request for). Listed by name: the controller
 * reads these through watches and has no right to get one.
 */
async function workerDeployment(options: WebhookOptions, namespace: string, name: string) {
  const list = await options.api
    .get<{ items: TemporalWorkerDeployment[] }>(
      `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${KINDS.TemporalWorkerDeployment.plural}`,
      { fieldSelector: `metadata.name=${name}` },
    )
    .catch((error: unknown) => {
      options.log.warn({ error: errorMessage(error) }, 'could not read the worker deployment of an owned resource');
      return undefined;
    });
  const twd = list?.items[0];
  return twd && { name, replicas: twd.spec.replicas, pools: twd.spec.pools };
}

/**
 * The rights of the ServiceAccount the controller writes the copies as (the controller uses none of
 * its own), asked of the API server unless recently allowed.
 */
async function accountVerdict(
  options: WebhookOptions,
  state: JudgeState,
  facts: AccessFacts,
  account: ServiceAccountRef,
  attributes: (verb: string) => { namespace: string; group: string; resource: string },
): Promise<Verdict> {
  const { allowedAt } = state;
  const { group, resource } = attributes('');
  const user = serviceAccountUser(account);
  const rightsKey = `${user}/${group}/${resource}`;
  if (facts.operation !== 'DELETE' && !recentlyAllowed(allowedAt, rightsKey)) {
    const denied: string[] = [];
    for (const verb of COPY_VERBS) {
      const review = await options.api.create<{ status?: { allowed?: boolean } }>(
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          // The groups the API server gives the account's requests, impersonated or not.
          spec: {
            user,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'],
            resourceAttributes: attributes(verb),
          },
        },
      );
      if (review.status?.allowed !== true) denied.push(verb);
    }
    if (denied.length > 0) facts.account = { name: `${account.namespace}/${account.name}`, denied };
    else rememberAllowed(allowedAt, rightsKey);
  }
  return accessVerdict(facts);
}
