/**
 * Id interning for the TREC scanner: an open-addressing hash table over the raw UTF-8 bytes of ids,
 * so a file's ids become dense integers without building a string per line (only new ids are
 * decoded). The byte hash is 32-bit FNV-1a, which the scanners compute while they tokenise.
 */

/** FNV-1a (32-bit) offset basis, as a signed int: start value of the byte hash. */
export const FNV_OFFSET = 0x811c9dc5 | 0;
/** FNV-1a (32-bit) prime: `h = Math.imul(h ^ byte, FNV_PRIME)` per byte. */
export const FNV_PRIME = 0x01000193;

/**
 * murmur3's 32-bit finaliser. FNV-1a's multiply only carries low bits upward, so ids that differ in
 * a few digits collide in the low bits the table indexes by; mixing spreads them.
 */
export function mixHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Interns byte strings (ids) to dense integers in first-seen order with an open-addressing hash
 * table over the raw bytes, so only new ids are decoded to JS strings.
 */
export class IdTable {
  /** Decoded ids; index = interned id. */
  readonly strings: string[] = [];
  /**
   * Open-addressing table, 4 ints per slot: [hash, id + 1, pool start, byte length], so a lookup
   * touches one cache line of the table plus the id's bytes.
   */
  private slots: Int32Array = new Int32Array(4 << 12);
  /** One-hash Bloom filter over the ids (8+ bits per id) so most absent lookups skip the table. */
  private filter: Int32Array = new Int32Array(0);
  private filterShift = 32;
  private filterFor = -1;
  private pool: Uint8Array = new Uint8Array(1 << 14);
  private poolUsed = 0;
  /** Per id: FNV-1a hash and pool start (idStart[id + 1] is its end). */
  private idHash: Int32Array = new Int32Array(1024);
  private idStart: Int32Array = new Int32Array(1024);
  /** String -> id, filled lazily by {@link get} / {@link intern}. */
  private readonly strIndex = new Map<string, number>();
  private indexed = 0;

  /** Number of interned ids. */
  get size(): number {
    return this.strings.length;
  }

  /** Interns `bytes[start, end)` (UTF-8) and returns its id. */
  internBytes(bytes: Buffer, start: number, end: number): number {
    let h = FNV_OFFSET;
    for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
    return this.internHashed(bytes, start, end, h);
  }

  /**
   * Interns `bytes[start, end)` whose 32-bit FNV-1a hash (offset 0x811c9dc5, prime 0x01000193)
   * the caller already computed while scanning.
   */
  internHashed(bytes: Buffer, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = mixHash(h) & mask;
    const len = end - start;
    for (;;) {
      const at = slot << 2;
      const v = slots[at + 1];
      if (v === 0) break;
      if (slots[at] === h && slots[at + 3] === len) {
        const pool = this.pool;
        const s = slots[at + 2];
        let i = 0;
        while (i < len && pool[s + i] === bytes[start + i]) i++;
        if (i === len) return v - 1;
      }
      slot = (slot + 1) & mask;
    }
    return this.add(bytes, start, end, h, slot);
  }

  /**
   * The id of `bytes[start, end)` (FNV-1a hash `h`, see {@link internHashed}), or -1 when it was
   * never interned. Never adds an id.
   */
  lookupHashed(bytes: Buffer, start: number, end: number, h: number): number {
    if (this.filterFor !== this.strings.length) this.buildFilter();
    const m = mixHash(h);
    const bit = m >>> this.filterShift;
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return -1;
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = m & mask;
    const len = end - start;
    for (;;) {
      const at = slot << 2;
      const v = slots[at + 1];
      if (v === 0) return -1;
      if (slots[at] === h && slots[at + 3] === len) {
        const pool = this.pool;
        const s = slots[at + 2];
        let i = 0;
        while (i < len && pool[s + i] === bytes[start + i]) i++;
        if (i === len) return v - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  private buildFilter(): void {
    let bits = 64;
    let log = 6;
    while (bits < this.strings.length * 8) {
      bits *= 2;
      log++;
    }
    this.filter = new Int32Array(bits >>> 5);
    this.filterShift = 32 - log;
    const slots = this.slots;
    for (let at = 0; at < slots.length; at += 4) {
      if (slots[at + 1] === 0) continue;
      const bit = mixHash(slots[at]) >>> this.filterShift;
      this.filter[bit >>> 5] |= 1 << (bit & 31);
    }
    this.filterFor = this.strings.length;
  }

  /** The FNV-1a hash of id `id`'s bytes (see {@link internHashed}). */
  hashOf(id: number): number {
    return this.idHash[id];
  }

  /** True when id `id` has exactly the bytes `bytes[start, end)`. */
  equalsBytes(id: number, bytes: Buffer, start: number, end: number): boolean {
    const s = this.idStart[id];
    const len = end - start;
    if (this.idStart[id + 1] - s !== len) return false;
    const pool = this.pool;
    for (let i = 0; i < len; i++) if (pool[s + i] !== bytes[start + i]) return false;
    return true;
  }

  /** Interns a JS string and returns its id. */
  intern(s: string): number {
    const known = this.get(s);
    if (known >= 0) return known;
    const b = Buffer.from(s, 'utf8');
    return this.internBytes(b, 0, b.length);
  }

  /** The id of `s`, or -1 when it was never interned. */
  get(s: string): number {
    for (; this.indexed < this.strings.length; this.indexed++) this.strIndex.set(this.strings[this.indexed], this.indexed);
    return this.strIndex.get(s) ?? -1;
  }

  private add(bytes: Buffer, start: number, end: number, h: number, slot: number): number {
    const id = this.strings.length;
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, this.poolUsed + len));
      pool.set(this.pool.subarray(0, this.poolUsed));
      this.pool = pool;
    }
    let ascii = true;
    const base = this.poolUsed;
    for (let i = start; i < end; i++) {
      const c = bytes[i];
      this.pool[base + i - start] = c;
      if (c >= 0x80) ascii = false;
    }
    this.poolUsed += len;
    if (id + 2 > this.idStart.length) {
      const size = this.idStart.length * 2;
      const hs = new Int32Array(size);
      hs.set(this.idHash);
      this.idHash = hs;
      const st = new Int32Array(size);
      st.set(this.idStart);
      this.idStart = st;
    }
    this.idHash[id] = h;
    this.idStart[id] = base;
    this.idStart[id + 1] = this.poolUsed;
    const at = slot << 2;
    this.slots[at] = h;
    this.slots[at + 1] = id + 1;
    this.slots[at + 2] = base;
    this.slots[at + 3] = len;
    this.strings.push(bytes.toString(ascii ? 'latin1' : 'utf8', start, end));
    if ((id + 1) * 2 > this.slots.length >> 2) this.rehash();
    return id;
  }

  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 2) - 1;
    for (let at = 0; at < old.length; at += 4) {
      if (old[at + 1] === 0) continue;
      let slot = mixHash(old[at]) & mask;
      while (slots[(slot << 2) + 1] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(at, at + 4), slot << 2);
    }
    this.slots = slots;
  }
}
