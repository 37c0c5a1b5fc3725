// The webhook's self-managed TLS: a CA and serving certificate kept in one Secret that every
// replica shares, the CAs in the webhook configuration's caBundle (and the external metrics
// APIService's, served on the same port), and this replica's server on
// the Secret's serving certificate. Every replica runs it, since every replica serves the webhook;
// writes carry the resourceVersion they were decided on, so two replicas that decide together
// write once and the other reads the result. Watches of the two objects (each by its name) only
// say when to look again; each look reads both afresh.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { errorMessage, httpStatus } from '../runtime/kube/api-errors.ts';
import { Backoff } from '../runtime/backoff.ts';
import { type KubernetesObject, SelfHealingInformer } from '../runtime/informer.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import {
  canonicalHost,
  certificatesOf,
  hostsOf,
  issueAuthority,
  issueServing,
  type KeyPair,
  validityOf,
} from './certificate-issuer.ts';
import { certificatePlan, type CertificatePlan, type HeldCertificates } from './certificate-policy.ts';
import type { ServingCertificates } from './serving-certificates.ts';

/** The Secret's keys: ca.crt holds every CA the caBundle trusts, oldest first; ca.key is the newest's. */
const KEYS = { bundle: 'ca.crt', authorityKey: 'ca.key', cert: 'tls.crt', key: 'tls.key' } as const;
/** A renewal far off is still looked at this often, and never less than a second after the last look. */
const LONGEST_SLEEP_MS = 60 * 60_000;
const SHORTEST_SLEEP_MS = 1000;

export type CertificateKind = 'authority' | 'serving';

/** Metrics of the certificates: when each expires, each renewal, each failed look. */
export interface CertificateReport {
  expires(kind: CertificateKind, notAfterMs: number): void;
  renewed(kind: CertificateKind): void;
  failed(): void;
}

export interface SelfManagedOptions {
  api: KubernetesApi;
  secret: { namespace: string; name: string };
  /** The ValidatingWebhookConfiguration whose webhooks get the caBundle. */
  configuration: string;
  /** An APIService served on the same port (external metrics), whose caBundle is kept too. */
  apiService?: string;
  /** The names the API server calls the webhook by (the Service's DNS names). */
  hosts: readonly string[];
  /** Of the serving certificate; the CA lives four times as long. */
  lifetimeMs: number;
  log: Logger;
  report?: CertificateReport;
  now?: () => number;
}

/** What the Secret holds, read: the PEMs and what the policy needs of them. */
interface Material {
  authorities: X509Certificate[];
  authorityKey: string;
  serving: KeyPair;
}

interface SecretObject {
  metadata?: { resourceVersion?: string; labels?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

interface WebhookConfiguration {
  metadata?: { resourceVersion?: string };
  webhooks?: Array<{ name: string; clientConfig: { caBundle?: string } }>;
}

interface ApiService {
  metadata?: { resourceVersion?: string };
  spec?: { caBundle?: string };
}

const API_SERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

export class SelfManagedCertificates implements ServingCertificates {
  private readonly options: SelfManagedOptions;
  private readonly now: () => number;
  private readonly hosts: string[];
  private readonly informers: Array<SelfHealingInformer<KubernetesObject>>;
  private readonly backoff = new Backoff<'look'>({ baseMs: 1000, maxMs: 60_000, jitter: 0.2 });
  private renewed: (pair: KeyPair) => void = () => {};
  private served: KeyPair | undefined;
  private firstServed: (pair: KeyPair) => void = () => {};
  private neverServed: (error: Error) => void = () => {};
  private timer: NodeJS.Timeout | undefined;
  /** The look under way: it resolves with how long to sleep after it. */
  private looking: Promise<number> | undefined;
  private lookAgain = false;
  private stopped = false;
  /** The waits and warnings already logged: each is logged once. */
  private said = new Set<string>();

  constructor(options: SelfManagedOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.hosts = options.hosts.map(canonicalHost);
    const { namespace, name } = options.secret;
    const onEvent = () => this.kick(0);
    this.informers = [
      new SelfHealingInformer<KubernetesObject>({
        api: options.api,
        path: `/api/v1/namespaces/${namespace}/secrets`,
        fieldSelector: `metadata.name=${name}`,
        onEvent,
        log: options.log,
      }),
      new SelfHealingInformer<KubernetesObject>({
        api: options.api,
        path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        fieldSelector: `metadata.name=${options.configuration}`,
        onEvent,
        log: options.log,
      }),
      ...(options.apiService
        ? [
            new SelfHealingInformer<KubernetesObject>({
              api: options.api,
              path: API_SERVICES,
              fieldSelector: `metadata.name=${options.apiService}`,
              onEvent,
              log: options.log,
            }),
          ]
        : []),
    ];
  }

  start(renewed: (pair: KeyPair) => void): Promise<KeyPair> {
    this.renewed = renewed;
    const first = new Promise<KeyPair>((resolve, reject) => {
      this.firstServed = resolve;
      this.neverServed = reject;
    });
    // Not awaited: a watch the controller may not make is retried by the informer, not fatal here.
    for (const informer of this.informers) void informer.start();
    this.kick(0);
    return first;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.neverServed(new Error('stopped before the webhook had a certificate'));
    clearTimeout(this.timer);
    await Promise.all(this.informers.map((informer) => informer.stop()));
    await this.looking;
  }

  /** Looks after `ms`, in place of the look planned before; during a look, `0` asks for another right after it. */
  private kick(ms: number): void {
    if (this.stopped) return;
    if (this.looking) {
      if (ms === 0) this.lookAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.lookOnce(), ms);
    this.timer.unref();
  }

  private async lookOnce(): Promise<void> {
    this.looking = this.look().then(
      (sleepMs) => {
        this.backoff.reset('look');
        return sleepMs;
      },
      (error: unknown) => {
        this.options.report?.failed();
        const retryInMs = this.backoff.next('look');
        this.options.log.warn(
          { error: errorMessage(error), retryInMs: Math.round(retryInMs) },
          'could not keep the webhook certificate',
        );
        return retryInMs;
      },
    );
    const next = await this.looking;
    this.looking = undefined;
    const again = this.lookAgain;
    this.lookAgain = false;
    this.kick(again ? 0 : next);
  }

  /** One look: read, decide, write, publish, serve. Resolves with how long to sleep. */
  private async look(): Promise<number> {
    const { api, secret, configuration, apiService, log, report } = this.options;
    const secretPath = `/api/v1/namespaces/${secret.namespace}/secrets/${secret.name}`;
    const configurationPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${configuration}`;
    const stored = await api.get<SecretObject>(secretPath).catch(absentAs404);
    const webhooks = await api.get<WebhookConfiguration>(configurationPath).catch(absentAs404);
    const apiServicePath = `${API_SERVICES}/${apiService ?? ''}`;
    const aggregated = apiService ? await api.get<ApiService>(apiServicePath).catch(absentAs404) : undefined;
    const now = this.now();
    let material: Material | undefined;
    let unusable: string | undefined;
    try {
      material = stored && readMaterial(stored);
    } catch (error) {
      unusable = errorMessage(error);
    }
    const published = [
      ...(webhooks?.webhooks ?? []).map((webhook) => webhook.clientConfig.caBundle),
      ...(aggregated ? [aggregated.spec?.caBundle] : []),
    ];
    const plan = certificatePlan(material && heldOf(material, published), this.wants(), now);
    if (plan.steps.length > 0) {
      if (unusable) log.warn({ secret: secretPath, problem: unusable }, 'the Secret holds no usable certificate');
      material = await this.carryOut(plan, material, now);
      const body = secretBody(secret, material, stored);
      await (stored
        ? api.replace(secretPath, body)
        : api.create(`/api/v1/namespaces/${secret.namespace}/secrets`, body));
    }
    if (!material) throw new Error('no certificate held after issuing one');
    const bundle = Buffer.from(material.authorities.map((authority) => authority.toString()).join('')).toString(
      'base64',
    );
    if (!webhooks)
      this.sayOnce(`no ValidatingWebhookConfiguration ${configuration}: the API server has no caBundle to trust`);
    else if (webhooks.webhooks?.some((webhook) => webhook.clientConfig.caBundle !== bundle)) {
      for (const webhook of webhooks.webhooks) webhook.clientConfig.caBundle = bundle;
      await api.replace(configurationPath, webhooks);
      log.info(
        { configuration, authorities: material.authorities.length },
        'the caBundle now holds the CAs of the Secret',
      );
    }
    if (apiService && !aggregated)
      this.sayOnce(`no APIService ${apiService}: the API server has no caBundle to trust for it`);
    else if (aggregated?.spec && aggregated.spec.caBundle !== bundle) {
      aggregated.spec.caBundle = bundle;
      await api.replace(apiServicePath, aggregated);
      log.info(
        { apiService, authorities: material.authorities.length },
        'the caBundle now holds the CAs of the Secret',
      );
    }
    if (plan.waiting) this.sayOnce(plan.waiting);
    this.serve(material);
    const newest = material.authorities.at(-1);
    if (newest) report?.expires('authority', validityOf(newest).notAfter);
    report?.expires('serving', validityOf(new X509Certificate(material.serving.cert)).notAfter);
    if (plan.steps.length > 0) return 0;
    return Math.min(Math.max(plan.recheckAt - now, SHORTEST_SLEEP_MS), LONGEST_SLEEP_MS);
  }

  private wants() {
    return { hosts: this.hosts, lifetimeMs: this.options.lifetimeMs };
  }

  private async carryOut(plan: CertificatePlan, held: Material | undefined, now: number): Promise<Material> {
    const { log, report, lifetimeMs } = this.options;
    let authorities = held?.authorities ?? [];
    let authority = held && { cert: held.authorities.at(-1)?.toString() ?? '', key: held.authorityKey };
    let serving = held?.serving;
    for (const step of plan.steps) {
      log.info({ step: step.kind, reason: step.reason }, 'webhook certificate');
      if (step.kind === 'issueAuthority') {
        authority = await issueAuthority(now, lifetimeMs);
        authorities = [...authorities, new X509Certificate(authority.cert)];
        report?.renewed('authority');
      } else if (step.kind === 'issueServing') {
        if (!authority) throw new Error('no CA to sign the serving certificate');
        serving = await issueServing(authority, this.hosts, now, lifetimeMs);
        report?.renewed('serving');
      } else authorities = authorities.filter((known) => known.fingerprint256 !== step.fingerprint);
    }
    if (!authority || !serving) throw new Error('the plan left no CA or serving certificate');
    return { authorities, authorityKey: authority.key, serving };
  }

  private serve(material: Material): void {
    const { serving } = material;
    if (this.served?.cert === serving.cert && this.served.key === serving.key) return;
    const first = !this.served;
    this.served = serving;
    if (first) this.firstServed(serving);
    else this.renewed(serving);
    this.options.log.info(
      { notAfter: new X509Certificate(serving.cert).validTo },
      first ? 'the webhook serves the certificate of its Secret' : 'the webhook serves its renewed certificate',
    );
  }

  private sayOnce(message: string): void {
    if (this.said.has(message)) return;
    this.said.add(message);
    this.options.log.warn(message);
  }
}

/** Throws what makes the Secret unusable, naming the key. */
function readMaterial(secret: SecretObject): Material {
  const data = secret.data ?? {};
  const text = (key: string) => {
    const value = data[key];
    if (!value) throw new Error(`it has no ${key}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  const authorities = certificatesOf(text(KEYS.bundle));
  const newest = authorities.at(-1);
  if (!newest) throw new Error(`${KEYS.bundle} holds no certificate`);
  const authorityKey = text(KEYS.authorityKey);
  if (!samePublicKey(newest, authorityKey))
    throw new Error(`${KEYS.authorityKey} is not the key of the last CA of ${KEYS.bundle}`);
  const serving = { cert: text(KEYS.cert), key: text(KEYS.key) };
  if (!new X509Certificate(serving.cert).checkPrivateKey(createPrivateKey(serving.key)))
    throw new Error(`${KEYS.key} is not the key of ${KEYS.cert}`);
  return { authorities, authorityKey, serving };
}

/** `published`: the caBundles (base64) of the webhooks and the APIService that trust the CAs. */
function heldOf(material: Material, published: ReadonlyArray<string | undefined>): HeldCertificates {
  const serving = new X509Certificate(material.serving.cert);
  const issuer = material.authorities.find(
    (authority) => serving.checkIssued(authority) && serving.verify(authority.publicKey),
  );
  const newest = material.authorities.at(-1)?.fingerprint256;
  const trusted = published.map((bundle) =>
    certificatesOf(Buffer.from(bundle ?? '', 'base64').toString('utf8')).map((authority) => authority.fingerprint256),
  );
  return {
    authorities: material.authorities.map((authority) => ({
      fingerprint: authority.fingerprint256,
      ...validityOf(authority),
    })),
    serving: { issuer: issuer?.fingerprint256 ?? '', hosts: hostsOf(serving), ...validityOf(serving) },
    newestPublished: trusted.length > 0 && trusted.every((fingerprints) => fingerprints.includes(newest ?? '')),
  };
}

function secretBody(secret: { namespace: string; name: string }, material: Material, stored: SecretObject | undefined) {
  const encode = (value: string) => Buffer.from(value).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...stored?.metadata,
      name: secret.name,
      namespace: secret.namespace,
      labels: {
        ...stored?.metadata?.labels,
        'app.kubernetes.io/managed-by': 'temporal-worker-controller',
      },
    },
    // A Secret's type cannot change: one made by someone else keeps its own.
    type: stored?.type ?? 'kubernetes.io/tls',
    data: {
      ...stored?.data,
      [KEYS.bundle]: encode(material.authorities.map((authority) => authority.toString()).join('')),
      [KEYS.authorityKey]: encode(material.authorityKey),
      [KEYS.cert]: encode(material.serving.cert),
      [KEYS.key]: encode(material.serving.key),
    },
  };
}

function samePublicKey(certificate: X509Certificate, privateKey: string): boolean {
  const expected = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'der' }).equals(expected);
}

function absentAs404(error: unknown): undefined {
  if (httpStatus(error) === 404) return undefined;
  throw error;
}
