/** Growable typed-array columns: a compact in-memory index of every event, O(1) append. */
type TypedArray = Float64Array | Uint32Array | Uint16Array | Uint8Array | Int32Array;
type Ctor<T extends TypedArray> = { new (length: number): T };

export class Column<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly ctor: Ctor<T>,
    capacity = 1024,
  ) {
    this.data = new ctor(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new this.ctor(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** Takes `data` as the column's storage, its first `length` values set (a recording's index read in bulk). */
  adopt(data: T, length: number): void {
    this.data = data;
    this.length = Math.min(length, data.length);
  }

  get(index: number): number {
    return this.data[index]!;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  get bytes(): number {
    return this.data.byteLength;
  }
}

/** Strings to small integers and back (server ids, methods), so columns stay numeric. */
export class Interner {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [''];

  /** The last value asked for: consecutive events mostly repeat it (one exchange's events, one server's). */
  private last = '';
  private lastId = 0;

  id(value: string | undefined): number {
    if (value === undefined || value === '') return 0;
    if (value === this.last) return this.lastId;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    this.last = value;
    this.lastId = id;
    return id;
  }

  /** 0 when the value was never seen (so a filter on it matches nothing). */
  lookup(value: string): number | undefined {
    return this.ids.get(value);
  }

  value(id: number): string | undefined {
    return id === 0 ? undefined : this.values[id];
  }
}
