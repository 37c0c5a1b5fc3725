// Watches that stay open while nothing changes, as client-go's reflector keeps them: client-node's
// Watch ends a watch that received nothing for 30 s, so each quiet informer of an idle controller
// watched again twice a minute. Here the API server ends each watch after 5 to 10 minutes
// (spread, so that informers do not come back together), and sends a bookmark about once a minute,
// which also moves the informer's resourceVersion on; the client gives up on a connection that
// has said nothing for longer than that, so a dead one is still noticed within two minutes.
import { type KubeConfig, Watch } from '@kubernetes/client-node';

/** The API server's watch cache sends each watcher a bookmark about this often. */
const BOOKMARK_PERIOD_MS = 60_000;
const SILENCE_LIMIT_MS = 2 * BOOKMARK_PERIOD_MS;
const SERVER_TIMEOUT_S = { min: 300, max: 600 };

type QueryParams = Record<string, string | number | boolean | undefined>;

export class LongWatch extends Watch {
  private readonly random: () => number;

  constructor(kubeconfig: KubeConfig, random: () => number = Math.random) {
    super(kubeconfig);
    // client-node keeps the limit private and gives no option for it.
    Object.assign(this, { requestTimeoutMs: SILENCE_LIMIT_MS });
    this.random = random;
  }

  override watch(
    path: string,
    queryParams: QueryParams,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(path, { ...longWatchParams(this.random), ...queryParams }, callback, done);
  }
}

/** What asks the API server for a long watch with bookmarks. */
export function longWatchParams(random: () => number): QueryParams {
  const { min, max } = SERVER_TIMEOUT_S;
  return { timeoutSeconds: Math.floor(min + random() * (max - min)), allowWatchBookmarks: true };
}
