/** Collections filled as they are asked (RepoTables over a symbol lookup: a one-off partial update). */

/** A map filled on first read of each key (a lookup's answers, kept). */
export class LazyMap<K, V> extends Map<K, V> {
  constructor(private readonly load: (k: K) => V | undefined) { super(); }
  override get(k: K): V | undefined {
    if (super.has(k)) return super.get(k);
    const v = this.load(k);
    super.set(k, v as V);
    return v;
  }
  override has(k: K): boolean { return this.get(k) !== undefined; }
}

/** A set asked one member at a time. */
export class LazySet<K> extends Set<K> {
  private readonly memo = new Map<K, boolean>();
  constructor(private readonly test: (k: K) => boolean) { super(); }
  override has(k: K): boolean { let r = this.memo.get(k); if (r === undefined) { r = this.test(k); this.memo.set(k, r); } return r; }
}
