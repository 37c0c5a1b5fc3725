// Runs one container of an image as a process, the way a container runtime would: in the Pod's
// network namespace, in a mount namespace of its own where the image's root file system is the
// lower layer of an overlay (so the image is shared and never written), with proc, a minimal
// /dev, the Pod's volumes at their mount paths, the root made read-only when the container asks,
// then entered as the container's user with nothing of this machine's environment. The process
// is the container: its exit ends the mount namespace and every mount with it. Needs root.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HostedWorker } from './worker-host.ts';
import type { ContainerProcess } from './image-container-spec.ts';

export interface ContainerMount {
  /** A directory of this machine. */
  source: string;
  /** Where the container sees it. */
  target: string;
  readOnly: boolean;
}

export interface ContainerLaunch {
  process: ContainerProcess;
  rootfs: string;
  /** The container's scratch: the overlay's upper, work and merged directories. */
  dir: string;
  networkNamespace: string;
  mounts: ContainerMount[];
  hostname: string;
  podIP: string;
  /** Where its stdout and stderr go. */
  logFile: string;
  /** How long a stop waits after SIGTERM before SIGKILL (the Pod's terminationGracePeriodSeconds). */
  graceMs: number;
}

const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** The script that builds the container's mounts, then becomes its process. Pure. */
export function containerScript(launch: ContainerLaunch): string {
  const q = shellQuote;
  const containerPath = launch.process.env.PATH;
  const root = path.join(launch.dir, 'merged');
  const at = (target: string): string => q(path.join(root, target));
  const lines = [
    'set -e',
    `mount -t overlay overlay -o ${q(`lowerdir=${launch.rootfs},upperdir=${path.join(launch.dir, 'upper')},workdir=${path.join(launch.dir, 'work')}`)} ${q(root)}`,
    `mkdir -p ${at('/proc')} ${at('/dev')} ${at('/tmp')}`,
    `mount -t proc proc ${at('/proc')}`,
    `mount -t tmpfs -o mode=755,nosuid tmpfs ${at('/dev')}`,
    ...DEVICES.map((device) => `touch ${at(`/dev/${device}`)} && mount --bind /dev/${device} ${at(`/dev/${device}`)}`),
    `mkdir -p ${at('/dev/shm')} && mount -t tmpfs -o nosuid,nodev tmpfs ${at('/dev/shm')}`,
    ...launch.mounts.flatMap((mount) => [
      `mkdir -p ${at(mount.target)}`,
      `mount --bind ${q(mount.source)} ${at(mount.target)}`,
      ...(mount.readOnly ? [`mount -o remount,bind,ro ${at(mount.target)}`] : []),
    ]),
    ...(launch.process.readOnlyRoot ? [`mount -o remount,ro ${q(root)}`] : []),
    containerPath === undefined ? 'unset PATH' : `export PATH=${q(containerPath)}`,
    // The shell sets PWD to where it was started; the container's working directory is another.
    ...(launch.process.env.PWD === undefined ? ['unset PWD'] : []),
    `exec /usr/bin/unshare --root=${q(root)} --wd=${q(launch.process.workingDir)} --setuid ${launch.process.uid} --setgid ${launch.process.gid} -- ${launch.process.argv.map(q).join(' ')}`,
  ];
  return lines.join('\n');
}

export function startContainer(launch: ContainerLaunch): Promise<HostedWorker> {
  rmSync(launch.dir, { recursive: true, force: true }); // a restarted container starts from the image again
  for (const part of ['upper', 'work', 'merged']) mkdirSync(path.join(launch.dir, part), { recursive: true });
  mkdirSync(path.join(launch.dir, 'upper/etc'), { recursive: true });
  writeFileSync(
    path.join(launch.dir, 'upper/etc/hosts'),
    `127.0.0.1\tlocalhost\n${launch.podIP}\t${launch.hostname}\n`,
  );
  writeFileSync(path.join(launch.dir, 'upper/etc/hostname'), `${launch.hostname}\n`);
  const log = openSync(launch.logFile, 'a');
  const child = spawn(
    'nsenter',
    [
      `--net=${launch.networkNamespace}`,
      '--',
      'unshare',
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      containerScript(launch),
    ],
    // The host's PATH finds mount for the script, which sets the container's own before its exec.
    { env: { ...launch.process.env, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  let stopping = false;
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (stopping) resolve();
      else reject(new Error(`the container exited (${signal ?? `code ${code ?? '?'}`}); its log: ${launch.logFile}`));
    });
  });
  return new Promise((resolve, reject) => {
    child.on('spawn', () =>
      resolve({
        done,
        stop: async () => {
          stopping = true;
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), launch.graceMs);
          await done.catch(() => undefined);
          clearTimeout(killer);
        },
      }),
    );
    child.on('error', reject);
  });
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
