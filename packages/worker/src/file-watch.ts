// Notices when files change: TLS material that cert-manager or a Secret update rotates in place.
import { readFile } from 'node:fs/promises';

/** Calls `onChange` once, at the first look that finds a file's content changed; a failed read is no change. */
export function watchFiles(paths: readonly string[], onChange: () => void, everyMs = 2_000): () => void {
  if (paths.length === 0) return () => {};
  const read = () => Promise.all(paths.map((path) => readFile(path, 'utf8').catch(() => undefined)));
  let first: (string | undefined)[] | undefined;
  // A slow disk can make looks overlap: one look at a time, and once told, never again.
  let looking = false;
  let told = false;
  const timer = setInterval(() => {
    if (looking || told) return;
    looking = true;
    void read().then((contents) => {
      looking = false;
      if (told) return;
      if (!first) first = contents;
      else if (contents.some((content, i) => content !== undefined && content !== first?.[i])) {
        told = true;
        clearInterval(timer);
        onChange();
      }
    });
  }, everyMs);
  timer.unref();
  void read().then((contents) => (first ??= contents));
  return () => clearInterval(timer);
}
