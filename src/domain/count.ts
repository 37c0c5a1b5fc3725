/** `1 replica`, `2 replicas`: a count with its noun in the right number. */
export function count(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
