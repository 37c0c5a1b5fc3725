// How many calls the controller has in flight at once to each Temporal namespace through each
// frontend: a limit of their own, apart from the reconciles that make them. A routing change is an
// update of the Worker Deployment's own workflow and takes a second or two on the server; calls to
// different Worker Deployments go side by side, up to this limit, while the reconciles waiting on
// them hold nothing else back. A call waits for a slot after its read token (read-budget.ts), and
// its own timeout starts once it has one. Changes go first here too: the calls of routine work
// (routine looks, the backlog figures) take at most half the slots, and a freed slot goes to a
// waiting change's call before any routine one, so a busy server answers a rollout's calls behind
// at most half the limit of routine ones (the scale run saw the one-a-second rollouts' calls wait
// seconds behind routine looks when all slots took them alike).
import type { WorkflowService } from './protocol.ts';
import { CALL_KINDS } from './protocol-scope.ts';
import { aroundCalls } from './service-calls.ts';

export type CallPriority = 'change' | 'routine';

export interface CallSlotsOptions {
  /** Calls in flight at once per (frontend address, Temporal namespace); routine ones at most half (at least one). */
  perNamespace: number;
  /** Told how long each call waited for its slot (0: it had one at once). */
  waited?: (temporalNamespace: string, ms: number) => void;
  /** Told of each change of the calls in flight to a namespace. */
  inFlight?: (temporalNamespace: string, calls: number) => void;
  now?: () => number;
}

interface Slots {
  busy: number;
  /** Of them, routine calls. */
  routine: number;
  /** In the order they came, per priority. */
  waiting: Record<CallPriority, (() => void)[]>;
}

export class TemporalCallSlots {
  private readonly options: CallSlotsOptions;
  private readonly now: () => number;
  private readonly slots = new Map<string, Slots>();

  constructor(options: CallSlotsOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /** The most routine calls in flight at once per namespace. */
  get routineLimit(): number {
    return Math.max(1, Math.floor(this.options.perNamespace / 2));
  }

  /**
   * The service, whose every call takes a slot of its namespace at `address` first; `signal` (a
   * reconcile's deadline) also ends a wait for one; `waited` hears of this service's waits;
   * `priority`: a change's calls (a reconcile an event brought) or routine ones.
   */
  limited(
    service: WorkflowService,
    address: string,
    options: { signal?: AbortSignal; waited?: (ms: number) => void; priority?: CallPriority } = {},
  ): WorkflowService {
    return aroundCalls<{ namespace?: string | null }>(
      service,
      (method) => method in CALL_KINDS,
      async (request, call) => {
        const namespace = request.namespace ?? '';
        const release = await this.take(address, namespace, options.priority ?? 'routine', options);
        try {
          return await call(request);
        } finally {
          release();
        }
      },
    );
  }

  /** Whether a call of `priority` may take a slot now. */
  private free(slots: Slots, priority: CallPriority): boolean {
    if (slots.busy >= this.options.perNamespace) return false;
    return priority === 'change' || slots.routine < this.routineLimit;
  }

  /** Resolves with the slot's release once one is free. */
  private async take(
    address: string,
    namespace: string,
    priority: CallPriority,
    { signal, waited }: { signal?: AbortSignal; waited?: (ms: number) => void },
  ): Promise<() => void> {
    signal?.throwIfAborted();
    const key = `${address}\0${namespace}`;
    let slots = this.slots.get(key);
    if (!slots) this.slots.set(key, (slots = { busy: 0, routine: 0, waiting: { change: [], routine: [] } }));
    const own = slots;
    const start = this.now();
    // A slot freed is handed straight to the call it goes to (see release): none taken in between.
    const queue = own.waiting[priority];
    if (queue.length === 0 && this.free(own, priority)) this.occupy(own, priority);
    else
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          queue.splice(queue.indexOf(turn), 1);
          reject(signal?.reason as Error);
        };
        queue.push(turn);
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
      own.busy--;
      if (priority === 'routine') own.routine--;
      this.handOn(own);
      this.options.inFlight?.(namespace, own.busy);
      if (own.busy === 0) this.slots.delete(key);
    };
  }

  private occupy(slots: Slots, priority: CallPriority): void {
    slots.busy++;
    if (priority === 'routine') slots.routine++;
  }

  /** The slots free now go to the waiting calls: changes first, then routine ones within their share. */
  private handOn(slots: Slots): void {
    for (const priority of ['change', 'routine'] as const) {
      while (slots.waiting[priority].length > 0 && this.free(slots, priority)) {
        this.occupy(slots, priority);
        slots.waiting[priority].shift()?.();
      }
    }
  }
}
