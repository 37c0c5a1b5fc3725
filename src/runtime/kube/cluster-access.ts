// How to reach a Kubernetes API server, read as client-go reads it: from a kubeconfig file or from
// the service account of the Pod the controller runs in. Files are read once at construction, so a
// bad kubeconfig fails at start with a clear error, and again when stale, so that rotated tokens
// and certificates are picked up without a restart.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

/** What one request needs: how to trust and authenticate to the API server now. */
export interface Credentials {
  /** PEM texts; absent means the system's trust store (ca) or no client certificate (cert/key). */
  tls: { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean; servername?: string };
  /** The whole Authorization header value, e.g. `Bearer abc` or `Basic ...`; absent when the client certificate authenticates. */
  authorization?: string;
}

export interface ClusterAccess {
  /** The API server's base URL without a trailing slash, e.g. https://127.0.0.1:6443 (a path prefix is kept). */
  readonly server: string;
  /** Where the access came from, for messages: the kubeconfig file and context, or "in-cluster". */
  readonly source: string;
  /**
   * The credentials to use now. Files named by the kubeconfig (certificate-authority,
   * client-certificate, client-key, tokenFile) and the in-cluster token are read again when more
   * than `refreshMs` (default 60 s) old, so a rotated token or certificate is picked up; an exec
   * plugin's credential is reused until its expirationTimestamp (or forever when none) and the
   * command runs again after that. Rejects with a KubeconfigError naming the file, user and field
   * when something cannot be read. Resolves to the same object for as long as nothing changed, so
   * a client may keep its connections while the credentials are identical.
   */
  credentials(): Promise<Credentials>;
}

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/**
 * Runs an exec credential plugin and resolves to its stdout. Rejects with an Error when the plugin
 * fails, whose `code` is 'ENOENT' when the command does not exist (the message then adds its installHint).
 */
export type ExecRunner = (command: string, args: readonly string[], env: NodeJS.ProcessEnv) => Promise<string>;

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const REFRESH_MS = 60_000;
const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
// client-go waits for a plugin forever; a controller would rather fail the request and retry.
const EXEC_TIMEOUT_MS = 60_000;

interface Common {
  now?: () => number;
  refreshMs?: number;
}

export function kubeconfigAccess(
  options: { file: string; context?: string; run?: ExecRunner } & Common,
): ClusterAccess {
  const file = path.resolve(options.file);
  const at = `kubeconfig ${file}`;
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new KubeconfigError(`${at}: cannot read it: ${(error as Error).message}`, { cause: error });
  }
  if (!isObject(doc)) throw new KubeconfigError(`${at}: empty, or not a YAML mapping`);
  const contextName = options.context ?? text(doc, 'current-context', at);
  if (!contextName) throw new KubeconfigError(`${at}: no context given and no current-context set`);
  const context = entry(doc, 'contexts', 'context', contextName, at);
  if (!context) throw new KubeconfigError(`${at}: context "${contextName}" not found`);
  const contextAt = `${at}: context "${contextName}"`;
  const clusterName = text(context, 'cluster', contextAt);
  if (!clusterName) throw new KubeconfigError(`${contextAt}: names no cluster`);
  const cluster = entry(doc, 'clusters', 'cluster', clusterName, at);
  if (!cluster) throw new KubeconfigError(`${contextAt}: cluster "${clusterName}" not found`);
  // A context without a user is anonymous, as in client-go.
  const userName = text(context, 'user', contextAt);
  const user = userName ? entry(doc, 'users', 'user', userName, at) : {};
  if (!user) throw new KubeconfigError(`${contextAt}: user "${userName}" not found`);

  // client-go resolves the paths in a kubeconfig against the file's own directory.
  const dir = path.dirname(file);
  const clusterAt = `${at}: cluster "${clusterName}"`;
  const userAt = `${at}: user "${userName ?? ''}"`;
  const server = text(cluster, 'server', clusterAt);
  if (!server) throw new KubeconfigError(`${clusterAt}: no server`);
  checkServer(server, clusterAt);
  for (const unsupported of ['proxy-url']) {
    if (cluster[unsupported] != null) throw new KubeconfigError(`${clusterAt}: ${unsupported} is not supported`);
  }
  const ca = pemSlot(cluster, 'certificate-authority', dir, clusterAt);
  const insecure = flag(cluster, 'insecure-skip-tls-verify', clusterAt);
  // client-go refuses this pair too: trusting one CA and nothing at all contradict each other.
  if (insecure && ca) {
    throw new KubeconfigError(`${clusterAt}: insecure-skip-tls-verify cannot be combined with a certificate-authority`);
  }

  const provider = user['auth-provider'];
  if (provider != null) {
    const name = isObject(provider) && typeof provider.name === 'string' ? ` "${provider.name}"` : '';
    throw new KubeconfigError(
      `${userAt}: auth-provider${name} is no longer supported (kubectl removed it); use an exec plugin ` +
        '(client.authentication.k8s.io/v1), e.g. gke-gcloud-auth-plugin or kubelogin',
    );
  }
  // Impersonation ignored would act as another identity than the kubeconfig says.
  for (const unsupported of ['as', 'as-uid', 'as-groups', 'as-user-extra']) {
    if (user[unsupported] != null)
      throw new KubeconfigError(`${userAt}: ${unsupported} (impersonation) is not supported`);
  }
  // The token file wins over an inline token: client-go uses the token only until it reads the file.
  const tokenFile = text(user, 'tokenFile', userAt);
  const inlineToken = text(user, 'token', userAt);
  const token: Slot | undefined = tokenFile
    ? { file: path.resolve(dir, tokenFile), field: 'tokenFile', at: userAt }
    : inlineToken
      ? { text: inlineToken }
      : undefined;
  const username = text(user, 'username', userAt);
  const password = text(user, 'password', userAt);
  const basic =
    username || password ? `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}` : undefined;
  if (token && basic) throw new KubeconfigError(`${userAt}: both a token and a username/password; only one is allowed`);
  const cert = pemSlot(user, 'client-certificate', dir, userAt);
  const key = pemSlot(user, 'client-key', dir, userAt);
  if (!cert !== !key) {
    throw new KubeconfigError(
      `${userAt}: ${cert ? 'client-certificate without a client-key' : 'client-key without a client-certificate'}`,
    );
  }
  // As in client-go, a static credential wins and the exec plugin is then never run.
  const exec = user.exec != null && !token && !basic && !cert ? execPlugin(user.exec, dir, cluster, userAt) : undefined;

  return new Access({
    server: server.replace(/\/+$/, ''),
    source: `${at} (context "${contextName}")`,
    rejectUnauthorized: !insecure,
    servername: text(cluster, 'tls-server-name', clusterAt),
    slots: { ca, cert, key, token },
    basic,
    exec: exec && { ...exec, run: options.run ?? runExecFile },
    now: options.now,
    refreshMs: options.refreshMs,
  });
}

export function inClusterAccess(options: { root?: string; env?: NodeJS.ProcessEnv } & Common = {}): ClusterAccess {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeconfigError(
      'in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a Pod?)',
    );
  }
  const root = options.root ?? SERVICE_ACCOUNT_DIR;
  return new Access({
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    source: 'in-cluster',
    rejectUnauthorized: true,
    slots: {
      ca: { file: path.join(root, 'ca.crt'), field: 'certificate-authority', at: 'in-cluster' },
      // Projected service-account tokens expire within hours; the kubelet rewrites the file before.
      token: { file: path.join(root, 'token'), field: 'token', at: 'in-cluster' },
    },
    now: options.now,
    refreshMs: options.refreshMs,
  });
}

/**
 * What `twc run` uses without --kubeconfig, in client-go's order: the first existing file of the
 * path list in $KUBECONFIG, or when KUBECONFIG is unset ~/.kube/config if it exists; else
 * in-cluster when KUBERNETES_SERVICE_HOST/PORT are set; else a KubeconfigError naming all three.
 */
export function defaultClusterAccess(
  options: { env?: NodeJS.ProcessEnv; home?: string; root?: string; run?: ExecRunner } & Common = {},
): ClusterAccess {
  const { env = process.env, home = homedir(), root, run, ...common } = options;
  const list = env.KUBECONFIG;
  const homeFile = path.join(home, '.kube', 'config');
  // As in client-go (and @kubernetes/client-node), a set KUBECONFIG hides ~/.kube/config.
  const candidates = list ? list.split(path.delimiter).filter(Boolean) : [homeFile];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (file) return kubeconfigAccess({ file, run, ...common });
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) return inClusterAccess({ env, root, ...common });
  const tried = list
    ? `no file of KUBECONFIG=${list} exists (so ${homeFile} was not read)`
    : `KUBECONFIG is not set and ${homeFile} does not exist`;
  throw new KubeconfigError(
    `no Kubernetes API server to reach: ${tried}, and KUBERNETES_SERVICE_HOST/PORT are not set (not in a Pod); pass --kubeconfig`,
  );
}

/** A PEM text or token given inline, or a file read again when stale. */
type Slot = { text: string } | { file: string; field: string; at: string };
type SlotName = 'ca' | 'cert' | 'key' | 'token';
type Snapshot = Partial<Record<SlotName, string>>;

interface ExecPlugin {
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: string;
  installHint?: string;
  /** spec.cluster of the ExecCredential when the kubeconfig asks for provideClusterInfo. */
  cluster?: (ca: string | undefined) => Record<string, unknown>;
  at: string;
}

interface Plan {
  rejectUnauthorized: boolean;
  servername?: string;
  slots: Partial<Record<SlotName, Slot>>;
  basic?: string;
  exec?: ExecPlugin & { run: ExecRunner };
}

interface PluginCredential {
  token?: string;
  cert?: string;
  key?: string;
  expiresAt: number;
}

class Access implements ClusterAccess {
  readonly server: string;
  readonly source: string;
  private readonly plan: Plan;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private files: Snapshot;
  private readAt: number;
  private plugin?: PluginCredential;
  private pluginRun?: Promise<PluginCredential>;
  /** What the last credentials were made of, by identity: a request between refreshes builds nothing. */
  private last?: { files: Snapshot; plugin: PluginCredential | undefined; json: string; credentials: Credentials };

  constructor(plan: Plan & { server: string; source: string } & Common) {
    this.server = plan.server;
    this.source = plan.source;
    this.plan = plan;
    this.now = plan.now ?? Date.now;
    this.refreshMs = plan.refreshMs ?? REFRESH_MS;
    this.files = readSlots(plan.slots);
    this.readAt = this.now();
  }

  async credentials(): Promise<Credentials> {
    // Synchronous reads of a few small local files once a minute: simpler than sharing async reads.
    if (this.now() - this.readAt > this.refreshMs) {
      this.files = readSlots(this.plan.slots);
      this.readAt = this.now();
    }
    const plugin = this.plan.exec && (await this.pluginCredential(this.plan.exec));
    if (this.last?.files === this.files && this.last.plugin === plugin) return this.last.credentials;
    const token = plugin?.token ?? this.files.token;
    const credentials: Credentials = {
      tls: defined({
        ca: this.files.ca,
        cert: plugin?.cert ?? this.files.cert,
        key: plugin?.key ?? this.files.key,
        rejectUnauthorized: this.plan.rejectUnauthorized,
        servername: this.plan.servername,
      }),
      ...defined({ authorization: token ? `Bearer ${token}` : this.plan.basic }),
    };
    // Files read again unchanged, or a plugin's same answer: the same object, so connections stay.
    const json = JSON.stringify(credentials);
    const kept = this.last?.json === json ? this.last.credentials : credentials;
    this.last = { files: this.files, plugin, json, credentials: kept };
    return kept;
  }

  private pluginCredential(exec: ExecPlugin & { run: ExecRunner }): Promise<PluginCredential> {
    if (this.plugin && this.now() <= this.plugin.expiresAt) return Promise.resolve(this.plugin);
    // Concurrent requests share one run; a failed run is not kept, so the next request tries again.
    this.pluginRun ??= runPlugin(exec, this.files.ca)
      .then((credential) => (this.plugin = credential))
      .finally(() => (this.pluginRun = undefined));
    return this.pluginRun;
  }
}

async function runPlugin(exec: ExecPlugin & { run: ExecRunner }, ca: string | undefined): Promise<PluginCredential> {
  const at = `${exec.at}: exec plugin ${exec.command}`;
  const info = {
    apiVersion: exec.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...defined({ cluster: exec.cluster?.(ca) }) },
  };
  let stdout: string;
  try {
    stdout = await exec.run(exec.command, exec.args, {
      ...process.env,
      ...exec.env,
      KUBERNETES_EXEC_INFO: JSON.stringify(info),
    });
  } catch (error) {
    const notFound = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const reason = notFound ? `not found${exec.installHint ? `\n${exec.installHint}` : ''}` : (error as Error).message;
    throw new KubeconfigError(`${at}: ${reason}`, { cause: error });
  }
  let credential: unknown;
  try {
    credential = JSON.parse(stdout);
  } catch {
    // Neither JSON.parse's message nor the error as cause: they quote the output, which may hold a token.
    throw new KubeconfigError(`${at}: printed no JSON ExecCredential (${Buffer.byteLength(stdout)} bytes of output)`);
  }
  if (!isObject(credential) || credential.kind !== 'ExecCredential' || credential.apiVersion !== exec.apiVersion) {
    const got = isObject(credential)
      ? `${String(credential.apiVersion)} ${String(credential.kind)}`
      : typeof credential;
    throw new KubeconfigError(`${at}: printed ${got}, not an ExecCredential of ${exec.apiVersion}`);
  }
  const status = credential.status;
  if (!isObject(status)) throw new KubeconfigError(`${at}: printed an ExecCredential without status`);
  const token = text(status, 'token', at);
  const cert = text(status, 'clientCertificateData', at);
  const key = text(status, 'clientKeyData', at);
  if (!token && !cert && !key) throw new KubeconfigError(`${at}: returned neither a token nor a client certificate`);
  if (!cert !== !key) throw new KubeconfigError(`${at}: returned only one of clientCertificateData and clientKeyData`);
  const expiration = text(status, 'expirationTimestamp', at);
  const expiresAt = expiration === undefined ? Infinity : Date.parse(expiration);
  if (Number.isNaN(expiresAt)) throw new KubeconfigError(`${at}: expirationTimestamp "${expiration}" is not a time`);
  return { ...defined({ token, cert, key }), expiresAt };
}

function execPlugin(value: unknown, dir: string, cluster: Record<string, unknown>, at: string): ExecPlugin {
  const exec = isObject(value) ? value : {};
  const apiVersion = text(exec, 'apiVersion', `${at}: exec`);
  if (!apiVersion || !EXEC_API_VERSIONS.includes(apiVersion)) {
    throw new KubeconfigError(
      `${at}: exec apiVersion ${apiVersion ?? '(none)'} is not one of ${EXEC_API_VERSIONS.join(', ')}`,
    );
  }
  const command = text(exec, 'command', `${at}: exec`);
  if (!command) throw new KubeconfigError(`${at}: exec has no command`);
  // The plugin runs unattended: one that insists on a terminal cannot work in a controller.
  const interactiveMode = text(exec, 'interactiveMode', `${at}: exec`);
  if (interactiveMode === 'Always') {
    throw new KubeconfigError(`${at}: exec interactiveMode Always needs a terminal, which a controller does not have`);
  }
  const args = list(exec.args, 'exec args', at).map((arg) => {
    if (typeof arg !== 'string') throw new KubeconfigError(`${at}: exec args must be strings`);
    return arg;
  });
  const env: Record<string, string> = {};
  for (const variable of list(exec.env, 'exec env', at)) {
    if (
      !isObject(variable) ||
      typeof variable.name !== 'string' ||
      !variable.name ||
      typeof variable.value !== 'string'
    ) {
      throw new KubeconfigError(`${at}: exec env entries need a name and a string value`);
    }
    env[variable.name] = variable.value;
  }
  const clusterInfo = (ca: string | undefined) => {
    const extension = list(cluster.extensions, 'extensions', at).find(
      (item) => isObject(item) && item.name === 'client.authentication.k8s.io/exec',
    ) as Record<string, unknown> | undefined;
    return defined({
      server: cluster.server,
      'tls-server-name': cluster['tls-server-name'],
      'insecure-skip-tls-verify': cluster['insecure-skip-tls-verify'],
      'certificate-authority-data': ca && Buffer.from(ca).toString('base64'),
      config: extension?.extension,
    });
  };
  return {
    // A command with a path separator is relative to the kubeconfig; a bare name is looked up in PATH.
    command: command.includes(path.sep) ? path.resolve(dir, command) : command,
    args,
    env,
    apiVersion,
    ...defined({ installHint: text(exec, 'installHint', `${at}: exec`) }),
    ...(flag(exec, 'provideClusterInfo', `${at}: exec`) ? { cluster: clusterInfo } : {}),
    at,
  };
}

/** `field` as a file path (relative to `dir`) or `field-data` as base64; the data wins, as in client-go. */
function pemSlot(object: Record<string, unknown>, field: string, dir: string, at: string): Slot | undefined {
  const data = text(object, `${field}-data`, at);
  if (data) {
    if (!/^[A-Za-z0-9+/=\s]+$/.test(data)) throw new KubeconfigError(`${at}: ${field}-data is not base64`);
    const pem = Buffer.from(data, 'base64').toString('utf8');
    if (!pem.includes('-----BEGIN')) throw new KubeconfigError(`${at}: ${field}-data does not hold PEM text`);
    return { text: pem };
  }
  const file = text(object, field, at);
  return file ? { file: path.resolve(dir, file), field, at } : undefined;
}

function readSlots(slots: Partial<Record<SlotName, Slot>>): Snapshot {
  const snapshot: Snapshot = {};
  for (const [name, slot] of Object.entries(slots) as [SlotName, Slot | undefined][]) {
    if (!slot) continue;
    if ('text' in slot) {
      snapshot[name] = slot.text;
      continue;
    }
    let content: string;
    try {
      content = readFileSync(slot.file, 'utf8');
    } catch (error) {
      throw new KubeconfigError(`${slot.at}: cannot read ${slot.field} ${slot.file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (name === 'token') {
      // client-go trims the token file, and an empty one is an error rather than no credential.
      content = content.trim();
      if (!content) throw new KubeconfigError(`${slot.at}: ${slot.field} ${slot.file} is empty`);
    } else if (!content.includes('-----BEGIN')) {
      throw new KubeconfigError(`${slot.at}: ${slot.field} ${slot.file} holds no PEM text`);
    }
    snapshot[name] = content;
  }
  return snapshot;
}

function checkServer(server: string, at: string): void {
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    // reported below
  }
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new KubeconfigError(`${at}: server "${server}" is not an https:// or http:// URL`);
  }
}

const runExecFile: ExecRunner = (command, args, env) =>
  new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: EXEC_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if (error.code === 'ENOENT')
        return reject(Object.assign(new Error(error.message, { cause: error }), { code: 'ENOENT' }));
      const how = error.killed
        ? `still running after ${EXEC_TIMEOUT_MS / 1000} s`
        : `exited with ${error.code ?? error.signal}`;
      const tail = stderr.trim().slice(-1000);
      reject(new Error(tail ? `${how}: ${tail}` : how, { cause: error }));
    });
  });

/** The `key` of the named item of a kubeconfig list (`clusters`, `contexts`, `users`); undefined when not found. */
function entry(
  doc: Record<string, unknown>,
  listName: string,
  key: string,
  name: string,
  at: string,
): Record<string, unknown> | undefined {
  const item = list(doc[listName], listName, at).find((candidate) => isObject(candidate) && candidate.name === name);
  if (!item) return undefined;
  const value = (item as Record<string, unknown>)[key];
  if (value == null) return {};
  if (!isObject(value)) throw new KubeconfigError(`${at}: ${key} "${name}" is not a mapping`);
  return value;
}

function text(object: Record<string, unknown>, key: string, at: string): string | undefined {
  const value = object[key];
  if (value == null || value === '') return undefined;
  if (typeof value !== 'string') throw new KubeconfigError(`${at}: ${key} is not a string`);
  return value;
}

function flag(object: Record<string, unknown>, key: string, at: string): boolean {
  const value = object[key] ?? false;
  if (typeof value !== 'boolean') throw new KubeconfigError(`${at}: ${key} is not true or false`);
  return value;
}

/** kubectl writes `null` for empty lists (e.g. `env: null`). */
function list(value: unknown, what: string, at: string): unknown[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw new KubeconfigError(`${at}: ${what} is not a list`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Without its undefined properties, so that absent means absent (and deepEqual agrees). */
function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
