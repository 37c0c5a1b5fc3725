// How many calls the controller has in flight at once to each Temporal namespace through each
// frontend: a limit of their own, apart from the reconciles that make them. A routing change is an
// update of the Worker Deployment's own workflow and takes a second or two on the server; calls to
// different Worker Deployments go side by side, up to this limit, while the reconciles waiting on
// them hold nothing else back. A call waits for a slot in the order it came, after its read token
// (read-budget.ts), and a call's own timeout starts once it has its slot.
import type { WorkflowService } from './protocol.ts';
import { CALL_KINDS } from './protocol-scope.ts';
import { aroundCalls } from './service-calls.ts';

export interface CallSlotsOptions {
  /** Calls in flight at once per (frontend address, Temporal namespace). */
  perNamespace: number;
  /** Told how long each call waited for its slot (0: it had one at once). */
  waited?: (temporalNamespace: string, ms: number) => void;
  /** Told of each change of the calls in flight to a namespace. */
  inFlight?: (temporalNamespace: string, calls: number) => void;
  now?: () => number;
}

interface Slots {
  busy: number;
  /** In the order they came. */
  waiting: (() => void)[];
}

export class TemporalCallSlots {
  private readonly options: CallSlotsOptions;
  private readonly now: () => number;
  private readonly slots = new Map<string, Slots>();

  constructor(options: CallSlotsOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * The service, whose every call takes a slot of its namespace at `address` first; `signal` (a
   * reconcile's deadline) also ends a wait for one; `waited` hears of this service's waits.
   */
  limited(
    service: WorkflowService,
    address: string,
    signal?: AbortSignal,
    waited?: (ms: number) => void,
  ): WorkflowService {
    return aroundCalls<{ namespace?: string | null }>(
      service,
      (method) => method in CALL_KINDS,
      async (request, call) => {
        const namespace = request.namespace ?? '';
        const release = await this.take(address, namespace, signal, waited);
        try {
          return await call(request);
        } finally {
          release();
        }
      },
    );
  }

  /** Resolves with the slot's release once one is free. */
  private async take(
    address: string,
    namespace: string,
    signal: AbortSignal | undefined,
    waited: ((ms: number) => void) | undefined,
  ): Promise<() => void> {
    signal?.throwIfAborted();
    const key = `${address}\0${namespace}`;
    let slots = this.slots.get(key);
    if (!slots) this.slots.set(key, (slots = { busy: 0, waiting: [] }));
    const own = slots;
    const start = this.now();
    // A slot freed goes straight to the first waiting call: none taken in between.
    if (own.busy < this.options.perNamespace) own.busy++;
    else
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          own.waiting.splice(own.waiting.indexOf(turn), 1);
          reject(signal?.reason as Error);
        };
        own.waiting.push(turn);
        signal?.addEventListener('abort', abort, { once: true });
      });
    const ms = this.now() - start;
    this.options.waited?.(namespace, ms);
    waited?.(ms);
    this.options.inFlight?.(namespace, own.busy);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = own.waiting.shift();
      if (next) return next();
      own.busy--;
      this.options.inFlight?.(namespace, own.busy);
      if (own.busy === 0) this.slots.delete(key);
    };
  }
}
