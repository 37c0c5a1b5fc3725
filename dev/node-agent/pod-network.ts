// A Pod's own network, as a CNI plugin would give it: a network namespace joined to this machine
// by a veth pair, with an address of its own in POD_SUBNET, so that two replicas may listen on
// the same port and the API server reaches each at its Pod IP (an endpoint may not be loopback).
// The machine's side of every pair also holds SERVICE_HOST_ADDRESS, the `kubernetes` Service's
// cluster IP, so that in-cluster clients reach the API server where its certificate says it is.
// Needs root and iproute2.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The first address of the local API server's service range: its certificate names it. */
export const SERVICE_HOST_ADDRESS = '10.0.0.1';
const POD_SUBNET = { prefix: '10.244', size: 256 * 254 };

export class PodNetworkError extends Error {
  override name = 'PodNetworkError';
}

export interface PodNetwork {
  ip: string;
  /** For `nsenter --net=`. */
  namespacePath: string;
  remove(): Promise<void>;
}

/** Names the machine's side of every Pod's veth pair. */
export const POD_INTERFACE_PREFIX = 'twc';

let next = Math.floor(Math.random() * POD_SUBNET.size);

/** A network of its own for one Pod; `tag` names its namespace (letters and digits). */
export async function createPodNetwork(tag: string): Promise<PodNetwork> {
  const name = `twc-${tag}`;
  const hostSide = `${POD_INTERFACE_PREFIX}${tag}`.slice(0, 15);
  const ip = async (...args: string[]): Promise<void> => {
    await run('ip', args).catch((error: unknown) => {
      throw new PodNetworkError(`ip ${args.join(' ')}: ${(error as { stderr?: string }).stderr?.trim() ?? ''}`, {
        cause: error,
      });
    });
  };
  await run('ip', ['netns', 'del', name]).catch(() => undefined); // left by an agent that was killed
  await ip('netns', 'add', name);
  try {
    await ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name);
    await ip('addr', 'add', `${SERVICE_HOST_ADDRESS}/32`, 'dev', hostSide);
    await ip('link', 'set', hostSide, 'up');
    const address = await claimAddress(hostSide);
    await ip('-n', name, 'addr', 'add', `${address}/32`, 'dev', 'eth0');
    await ip('-n', name, 'link', 'set', 'lo', 'up');
    await ip('-n', name, 'link', 'set', 'eth0', 'up');
    await ip('-n', name, 'route', 'add', `${SERVICE_HOST_ADDRESS}/32`, 'dev', 'eth0');
    await ip('-n', name, 'route', 'add', 'default', 'via', SERVICE_HOST_ADDRESS, 'dev', 'eth0');
    return {
      ip: address,
      namespacePath: `/run/netns/${name}`,
      // Deleting the namespace deletes the pair, and with it the machine's route to the Pod.
      remove: () => run('ip', ['netns', 'del', name]).then(() => undefined),
    };
  } catch (error) {
    await run('ip', ['netns', 'del', name]).catch(() => undefined);
    await run('ip', ['link', 'del', hostSide]).catch(() => undefined);
    throw error;
  }
}

/**
 * A Pod address nobody routes yet, taken by routing it to `device`: the route is the claim, so
 * two agents on one machine never hand out the same address.
 */
async function claimAddress(device: string): Promise<string> {
  for (let tries = 0; tries < POD_SUBNET.size; tries++) {
    const n = next++ % POD_SUBNET.size;
    const address = `${POD_SUBNET.prefix}.${Math.floor(n / 254)}.${(n % 254) + 1}`;
    try {
      await run('ip', ['route', 'add', `${address}/32`, 'dev', device]);
      return address;
    } catch (error) {
      if (!String((error as { stderr?: string }).stderr).includes('File exists')) {
        throw new PodNetworkError(`routing ${address} to ${device}`, { cause: error });
      }
    }
  }
  throw new PodNetworkError(`no free address in ${POD_SUBNET.prefix}.0.0/16`);
}
