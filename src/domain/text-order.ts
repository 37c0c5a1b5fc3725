// How the controller orders names: by UTF-16 code unit, as a byte-wise comparison would, the same
// on every machine. localeCompare orders by the machine's locale, with ICU's collation tables, names
// that are ASCII anyway.

/** For Array.prototype.sort: negative, zero or positive as `a` sorts before, with or after `b`. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
