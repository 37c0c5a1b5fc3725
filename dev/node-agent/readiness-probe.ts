// A container's readiness as a kubelet judges it: its readinessProbe (httpGet or tcpSocket) run
// every periodSeconds against the Pod IP, Ready after successThreshold passes in a row and not
// Ready after failureThreshold failures in a row.
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { setTimeout as sleepFor } from 'node:timers/promises';

export class ProbeSpecError extends Error {
  override name = 'ProbeSpecError';
}

/** Calls `onChange` whenever readiness turns, until `signal` aborts; starts not Ready. */
export async function watchReadiness(
  probe: V1Probe,
  container: V1Container,
  podIP: string,
  signal: AbortSignal,
  onChange: (ready: boolean) => void,
): Promise<void> {
  const check = probeCall(probe, container, podIP);
  const periodMs = (probe.periodSeconds ?? 10) * 1000;
  let ready = false;
  let streak = 0; // passes (positive) or failures (negative) in a row
  await sleep((probe.initialDelaySeconds ?? 0) * 1000, signal);
  while (!signal.aborted) {
    const passed = await check();
    streak = passed ? Math.max(streak, 0) + 1 : Math.min(streak, 0) - 1;
    const turned = ready ? -streak >= (probe.failureThreshold ?? 3) : streak >= (probe.successThreshold ?? 1);
    if (turned && !signal.aborted) {
      ready = !ready;
      onChange(ready);
    }
    await sleep(periodMs, signal);
  }
}

function probeCall(probe: V1Probe, container: V1Container, podIP: string): () => Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  const portOf = (port: number | string): number => {
    if (typeof port === 'number') return port;
    const named = container.ports?.find((p) => p.name === port)?.containerPort;
    if (named === undefined)
      throw new ProbeSpecError(`readinessProbe: container ${container.name} has no port named ${port}`);
    return named;
  };
  if (probe.httpGet) {
    const { path = '/', scheme = 'HTTP', port } = probe.httpGet;
    const send = scheme === 'HTTPS' ? httpsRequest : httpRequest;
    const url = `${scheme.toLowerCase()}://${podIP}:${portOf(port)}${path}`;
    return () =>
      new Promise((resolve) => {
        // As a kubelet: HTTPS probes do not verify the certificate; 2xx and 3xx pass.
        const req = send(url, { timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
        req.end();
      });
  }
  if (probe.tcpSocket) {
    const port = portOf(probe.tcpSocket.port);
    return () =>
      new Promise((resolve) => {
        const socket = connect({ host: podIP, port, timeout: timeoutMs });
        socket.on('connect', () => (socket.destroy(), resolve(true)));
        socket.on('timeout', () => (socket.destroy(), resolve(false)));
        socket.on('error', () => resolve(false));
      });
  }
  throw new ProbeSpecError(
    `readinessProbe of container ${container.name}: only httpGet and tcpSocket are supported by the local node agent`,
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, { signal }).catch(() => undefined);
}
