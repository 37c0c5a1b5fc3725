// How the controller orders names: by UTF-16 code unit, as a byte-wise comparison would. The same
// on every machine whatever its locale, and without ICU's collation tables, which localeCompare
// loads into the process (some 3 MiB resident) for names that are ASCII anyway.

/** For Array.prototype.sort: negative, zero or positive as `a` sorts before, with or after `b`. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
