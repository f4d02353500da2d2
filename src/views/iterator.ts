// Iterators of MiniFloatArray: a plain object with next(), about 3× cheaper per element than a generator in V8
// (bench/views.mjs: 34 ns against 100 ns per element of a 1M float8 array).
export class ArrayIterator<T> implements IterableIterator<T> {
  #next = 0;

  constructor(
    readonly length: number,
    readonly item: (index: number) => T,
  ) {}

  next(): IteratorResult<T, undefined> {
    const i = this.#next;
    if (i >= this.length) return { done: true, value: undefined };
    this.#next = i + 1;
    return { done: false, value: this.item(i) };
  }

  [Symbol.iterator](): this {
    return this;
  }
}
