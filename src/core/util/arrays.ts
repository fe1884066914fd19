/**
 * Appends every item to `target` in place. `target.push(...items)` passes each item as an argument, so a
 * list of more than ~100k items (the callers of a base method every override of a large hierarchy shares)
 * overflows the call stack; this never does.
 */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const x of items) target.push(x);
  return target;
}
