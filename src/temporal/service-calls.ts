// Some of the service's calls wrapped (paced by the read budget, refusals remembered, answers
// checked), every other property left as it is: the one Proxy the wrappers beside this file share.
import type { WorkflowService } from './protocol.ts';

/**
 * The service with `around` about each call of a method `wraps` names; `call` makes the call
 * itself; `called`, if given, hears each call's method as it is made.
 */
export function aroundCalls<Request>(
  service: WorkflowService,
  wraps: (method: string) => boolean,
  around: (request: Request, call: (request: Request) => Promise<unknown>) => Promise<unknown>,
  called?: (method: string) => void,
): WorkflowService {
  return new Proxy(service, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !wraps(property) || typeof value !== 'function') return value;
      const call = (request: Request) => (value as (r: Request) => Promise<unknown>).call(target, request);
      return (request: Request) => {
        called?.(property);
        return around(request, call);
      };
    },
  });
}
