// Builds the binaries the local environment runs, from Go modules, into a cache outside the
// clone: a fresh clone (CI, a second checkout) reuses what an earlier run built.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const HELM_MODULE = 'helm.sh/helm/v4/cmd/helm';
export const HELM_VERSION = 'v4.3.1';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** A module of ours under tools/ whose go.mod pins what it builds: built with `go build`, as `go install` cannot. */
interface WrapperModule {
  dir: string;
  /** The module whose version names the binary, as go.mod requires it. */
  requires: string;
  /** The main package built. */
  main: string;
}

const KUBE: WrapperModule = { dir: path.join(repoRoot, 'tools/k8s-testbin'), requires: 'k8s.io/kubernetes', main: '.' };
const TEMPORAL_CLI: WrapperModule = {
  dir: path.join(repoRoot, 'tools/temporal-cli'),
  requires: 'github.com/temporalio/cli',
  main: 'github.com/temporalio/cli/cmd/temporal',
};

const ARGOCD_LUA: WrapperModule = {
  dir: path.join(repoRoot, 'tools/argocd-lua'),
  requires: 'github.com/yuin/gopher-lua',
  main: '.',
};

export interface Binaries {
  /** Multi-call binary: `etcd`, `kube-apiserver`, `kube-controller-manager`, `kubectl`, `exec`, `kstatus`. */
  kube: string;
  /** The Temporal CLI, whose `server start-dev` is the dev server (server 1.29.1). */
  temporal: string;
  /**
   * A newer Temporal CLI (server 1.31.2), for what 1.29.1 lacks: continue-as-new onto the current
   * build (`initial_versioning_behavior`). `npm start` and the test of that run it.
   */
  temporalNext: string;
  /** Installs the charts, as a platform team would. */
  helm: string;
  /** Runs an Argo CD health check (Lua) with the interpreter Argo CD embeds: `argocd-lua script.lua < objects.json`. */
  argocdLua: string;
}

export class BinaryBuildError extends Error {
  override name = 'BinaryBuildError';
}

export function cacheRoot(): string {
  const configured = process.env.TWC_CACHE_DIR;
  if (configured) return configured;
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'temporal-worker-controller');
}

/** The version a wrapper module's go.mod requires of what it builds; go.mod is the one place it is written. */
function requiredVersion(module: WrapperModule): string {
  const goMod = readFileSync(path.join(module.dir, 'go.mod'), 'utf8');
  const match = new RegExp(`^\\s*(?:require )?${module.requires.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(goMod);
  if (!match?.[1]) throw new BinaryBuildError(`${module.dir}/go.mod does not require ${module.requires}`);
  return match[1];
}

export function kubernetesVersion(): string {
  return requiredVersion(KUBE);
}

/** The same binaries, with the newer Temporal CLI as the one whose dev server is started. */
export function newerTemporal(binaries: Binaries): Binaries {
  return { ...binaries, temporal: binaries.temporalNext };
}

/** The release of the newer Temporal CLI (see Binaries.temporalNext). */
export function temporalNextVersion(): string {
  return requiredVersion(TEMPORAL_CLI);
}

/** `<name>-<version>-<hash>`: a change of the module's sources or of the linker flags is a new binary. */
function wrapperBinaryName(name: string, module: WrapperModule, ldflags: string[]): string {
  const sources = readdirSync(module.dir)
    .filter((f) => f.endsWith('.go') || f === 'go.mod' || f === 'go.sum')
    .sort();
  const hash = createHash('sha256').update(ldflags.join(' '));
  for (const file of sources) hash.update(file).update(readFileSync(path.join(module.dir, file)));
  return `${name}-${requiredVersion(module)}-${hash.digest('hex').slice(0, 12)}`;
}

/** No symbol table nor debug information: smaller, and nothing here debugs them. */
const STRIPPED = ['-s', '-w'];

/** Where each binary lives: those built from our wrapper modules are keyed by version and by the module's sources. */
export function binaryPaths(): Binaries {
  const bin = path.join(cacheRoot(), 'bin');
  return {
    kube: path.join(bin, wrapperBinaryName('k8s-testbin', KUBE, kubeLinkerFlags())),
    temporal: path.join(bin, `temporal-cli-${TEMPORAL_CLI_VERSION}`),
    temporalNext: path.join(bin, wrapperBinaryName('temporal-cli', TEMPORAL_CLI, STRIPPED)),
    helm: path.join(bin, `helm-${HELM_VERSION}`),
    argocdLua: path.join(bin, wrapperBinaryName('argocd-lua', ARGOCD_LUA, STRIPPED)),
  };
}

/**
 * Stamps the release into the binary, as Kubernetes' own build does: unstamped, the API server
 * says it is v0.0.0, and helm refuses a chart's `kubeVersion` against it.
 */
function kubeLinkerFlags(): string[] {
  const version = kubernetesVersion();
  const [major = '', minor = ''] = version.slice(1).split('.');
  const stamp = (pkg: string) => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    '-X ' + pkg + '.gitTreeState=clean',
  ];
  return ['-s', '-w', ...stamp('k8s.io/component-base/version'), ...stamp('k8s.io/client-go/pkg/version')];
}

export type Log = (line: string) => void;

/** Builds whatever binary is missing from the cache, and returns where each is. */
export async function ensureBinaries(log: Log = (line) => console.error(line)): Promise<Binaries> {
  const paths = binaryPaths();
  const missing = [paths.kube, paths.temporal, paths.temporalNext, paths.helm, paths.argocdLua].filter(
    (p) => !existsSync(p),
  );
  if (missing.length === 0) return paths;
  const go = findGo();
  const wrapped = [
    {
      what: `kube-apiserver, kube-controller-manager, etcd and kubectl (Kubernetes ${kubernetesVersion()})`,
      output: paths.kube,
      module: KUBE,
      ldflags: kubeLinkerFlags(),
    },
    {
      what: `the Temporal CLI ${temporalNextVersion()}`,
      output: paths.temporalNext,
      module: TEMPORAL_CLI,
      ldflags: STRIPPED,
    },
    {
      what: `the Lua interpreter of Argo CD's health checks (gopher-lua ${requiredVersion(ARGOCD_LUA)})`,
      output: paths.argocdLua,
      module: ARGOCD_LUA,
      ldflags: STRIPPED,
    },
  ];
  for (const { what, output, module, ldflags } of wrapped) {
    if (existsSync(output)) continue;
    await goBuild(go, log, {
      what,
      output,
      cwd: module.dir,
      args: (out) => [
        'build',
        '-v',
        '-trimpath',
        '-buildvcs=false',
        `-ldflags=${ldflags.join(' ')}`,
        '-o',
        out,
        module.main,
      ],
    });
  }
  const installs = [
    {
      what: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
      output: paths.temporal,
      module: TEMPORAL_CLI_MODULE,
      version: TEMPORAL_CLI_VERSION,
    },
    { what: `helm ${HELM_VERSION}`, output: paths.helm, module: HELM_MODULE, version: HELM_VERSION },
  ];
  for (const { what, output, module, version } of installs) {
    if (existsSync(output)) continue;
    await goBuild(go, log, {
      what,
      output,
      cwd: cacheRoot(),
      // go install names the binary after the package; GOBIN is a private folder, then renamed.
      args: () => ['install', '-v', '-trimpath', '-buildvcs=false', '-ldflags=-s -w', `${module}@${version}`],
      gobinOutput: path.basename(module),
    });
  }
  return paths;
}

function findGo(): string {
  const go = process.env.GO ?? 'go';
  const probe = spawnSync(go, ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new BinaryBuildError(
      `Go is not available (ran \`${go} version\`: ${probe.error?.message ?? probe.stderr.trim()}). ` +
        'The local environment builds kube-apiserver, kube-controller-manager, etcd and the Temporal CLI from Go ' +
        'modules: install Go 1.24 or newer (or set GO to its path), then run `npm run build:binaries`.',
    );
  }
  return go;
}

interface GoBuild {
  what: string;
  output: string;
  cwd: string;
  args: (tempOutput: string) => string[];
  gobinOutput?: string;
}

async function goBuild(go: string, log: Log, build: GoBuild): Promise<void> {
  const started = Date.now();
  const staging = `${build.output}.partial-${process.pid}`;
  mkdirSync(path.dirname(build.output), { recursive: true });
  mkdirSync(build.cwd, { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  const env = { ...process.env };
  if (build.gobinOutput) {
    mkdirSync(staging, { recursive: true });
    env.GOBIN = staging;
  }
  log(`building ${build.what} into ${path.dirname(build.output)} (a cold build takes 5-20 minutes on 2 cores)`);

  const tail: string[] = [];
  let downloaded = 0;
  let compiled = 0;
  const child = spawn(go, build.args(staging), { cwd: build.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const onLine = (line: string): void => {
    if (line.startsWith('go: downloading')) downloaded++;
    else if (line.trim() !== '') compiled++;
    tail.push(line);
    if (tail.length > 40) tail.shift();
  };
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
  }
  const progress = setInterval(() => {
    log(`  ... ${elapsed(started)}: ${downloaded} modules downloaded, ${compiled} packages compiled`);
  }, 15_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => clearInterval(progress));

  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const output = tail.join('\n');
    const unreachable =
      /dial tcp|no such host|i\/o timeout|TLS handshake|connection refused|proxyconnect|reading https?:\/\//.test(
        output,
      );
    throw new BinaryBuildError(
      `building ${build.what} failed (go exited with ${code})` +
        (unreachable
          ? `: the Go module proxy (GOPROXY=${process.env.GOPROXY ?? 'go env default'}) could not be reached. Check the network, then run \`npm run build:binaries\`.`
          : '. Fix the error below, then run `npm run build:binaries`.') +
        `\n--- last lines of go's output ---\n${output}`,
    );
  }
  renameSync(build.gobinOutput ? path.join(staging, build.gobinOutput) : staging, build.output);
  rmSync(staging, { recursive: true, force: true });
  log(`built ${build.what} in ${elapsed(started)}: ${build.output}`);
}

function elapsed(since: number): string {
  const s = Math.round((Date.now() - since) / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
