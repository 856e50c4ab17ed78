/** Reading a report figure by its dotted path (a check's `metric`). */

/** Follows a dotted path through plain objects; undefined when any step is missing. */
export function readPath(root: unknown, dotted: string): unknown {
  let node: unknown = root;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
