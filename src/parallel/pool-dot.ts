// The batched dot products of a Pool (dotRows, matvec, matmul): the zero-copy kernel path on operands in the pool's
// shared memory (dotBatch over whole rows on every worker), else dot jobs on parts of shared copies. Each result is
// one whole dot product computed by one worker, so results equal the single-thread calls bit for bit.
import {
  type DotOptions,
  type MatNames,
  type MatOptions,
  type MatScales,
  type ResolvedDot,
  dotRows,
  dotRowsArgs,
  matmulArgs,
  matmulChecked,
} from "../dot/index.js";
import type { DotContext } from "../dot/reference.js";
import { dotPlan, productKey, productValues, stride, writeDotParams } from "../dot/wasm.js";
import { quantize } from "../api/bulk.js";
import { format } from "../format/registry.js";
import { kernelStatus } from "../wasm/instance.js";
import { keep } from "../wasm/memory.js";
import type { HeapView } from "./heap.js";
import type { DotJob } from "./protocol.js";
import { type ArrayType, type Workers, copyBack, isShared, share, sharedArray } from "./workers.js";
import { requireSeparate } from "../api/validate.js";

const BINARY16 = format("binary16");

/** The plain-data options of a dot job (formats travel as specs). */
function dotJobOptions(o: { partials?: string; overflow?: string; blockSize?: number }): DotJob["options"] {
  return { partials: o.partials, overflow: o.overflow, blockSize: o.blockSize };
}

/** The scales of rows [i, j) of `count` rows: one code per row or `blocks` per row (validated by matmulArgs). */
function rowScales(s: Uint8Array | undefined, count: number, i: number, j: number, blocks: number): Uint8Array | undefined {
  if (!s) return undefined;
  return s.length === count ? s.subarray(i, j) : s.subarray(i * blocks, j * blocks);
}

/** Dot products on a pool's workers. */
export class PoolDot {
  readonly #w: Workers;
  /** Dot product tables in the shared memory, by configuration (undefined: not float32 values, no kernel). */
  readonly #products = new Map<string, number | undefined>();

  constructor(
    workers: Workers,
    readonly minElements: number,
  ) {
    this.#w = workers;
  }

  /** The product table of ctx in the shared memory (built and uploaded on first use), or undefined. */
  #productTable(ctx: DotContext): number | undefined {
    const key = productKey(ctx);
    if (!this.#products.has(key)) {
      const values = productValues(ctx);
      const ptr = values && this.#w.heap.alloc(values.byteLength);
      if (values && ptr !== undefined) new Float32Array(this.#w.heap.buffer, ptr, values.length).set(values);
      this.#products.set(key, ptr);
    }
    return this.#products.get(key);
  }

  /**
   * The zero-copy dot path: operands in the pool's memory and a case dotBatch covers (else undefined). Each worker runs
   * dotBatch on its instance of the threads build over whole rows, with an index scratch of its own: rows of a (or,
   * when a has fewer rows than there are threads, rows of b into parts interleaved after), or row pairs (`pairs`).
   * Returns the float32 results.
   */
  async #dotShared(
    r: ResolvedDot,
    a: Uint8Array,
    b: Uint8Array,
    k: number,
    m: number,
    n: number,
    pairs: boolean,
    scales: MatScales | undefined,
  ): Promise<Float32Array | undefined> {
    const heap = this.#w.heap;
    if (!kernelStatus().enabled || !heap.owns(a) || !heap.owns(b)) return undefined;
    const plan = dotPlan(r.ctx, k, scales?.a !== undefined || scales?.b !== undefined);
    const table = plan && this.#productTable(r.ctx);
    if (!plan || table === undefined) return undefined;
    const results = pairs ? m : m * n;
    const blocks = Math.max(1, Math.ceil(k / r.ctx.block));
    const [strideA, strideB] = [stride(scales?.a, m), stride(scales?.b, n)];
    const temporary: HeapView[] = [];
    const scratch = <T extends HeapView>(t: T): T => {
      temporary.push(t);
      return t;
    };
    const copy = (s: Uint8Array | undefined) => {
      if (!s) return undefined;
      const view = scratch(heap.view(Uint8Array, s.length, "options.scales"));
      view.set(s);
      return view;
    };
    try {
      const [sa, sb] = [copy(scales?.a), copy(scales?.b)];
      const [saPtr, sbPtr] = [sa?.byteOffset ?? 0, sb?.byteOffset ?? 0];
      const out = scratch(heap.view(Float32Array, results, "out"));
      // One parameter block per thread (the kernel's index scratch is in it).
      const params = Array.from({ length: this.#w.runners }, () => scratch(heap.view(Uint8Array, heap.kernels.dotParamsBytes())).byteOffset);
      for (const p of params) writeDotParams(heap, p, { ...plan, k, table, strideA, strideB, blocks, pairs, carry: false });
      // Scales of rows [i, …) of a call's operand: one code per row or `blocks` per row.
      const rowScale = (ptr: number, s: number, i: number) => (s === 0 ? 0 : ptr + (s === 1 ? i : i * blocks));
      const call = (pa: number, pb: number, rows: number, cols: number, sA: number, sB: number, po: number, t: number) => [
        params[t]!,
        pa,
        pb,
        rows,
        cols,
        sA,
        sB,
        po,
      ];
      if (pairs) {
        await this.#w.runKernel(
          m,
          "dotBatch",
          (i, j, t) => call(a.byteOffset + i * k, b.byteOffset + i * k, j - i, j - i, 0, 0, out.byteOffset + 4 * i, t),
          1,
          1,
        );
      } else if (m >= this.#w.threads.length || m >= n) {
        await this.#w.runKernel(
          m,
          "dotBatch",
          (i, j, t) => call(a.byteOffset + i * k, b.byteOffset, j - i, n, rowScale(saPtr, strideA, i), sbPtr, out.byteOffset + 4 * i * n, t),
          1,
          1,
        );
      } else {
        // Columns [i, j) of the result go to m × (j − i) results at parts + 4·m·i, interleaved into out after.
        const parts = scratch(heap.view(Float32Array, m * n, "out"));
        const ranges: Array<[number, number]> = [];
        await this.#w.runKernel(
          n,
          "dotBatch",
          (i, j, t) => {
            if (t === 0) ranges.push([i, j]);
            return call(a.byteOffset, b.byteOffset + i * k, m, j - i, saPtr, rowScale(sbPtr, strideB, i), parts.byteOffset + 4 * m * i, t);
          },
          1,
          1,
        );
        for (const [i, j] of ranges) for (let row = 0; row < m; row++) out.set(parts.subarray(m * i + row * (j - i), m * i + (row + 1) * (j - i)), row * n + i);
      }
      return new Float32Array(out);
    } finally {
      for (const t of temporary) heap.free(t.byteOffset, t.byteLength);
    }
  }

  /**
   * Checks the codes of the operands in parallel before any part computes (formats of fewer than 8 bits only; an
   * error names the first bad code of the first bad part, as the single-thread call names the first bad code).
   */
  async #checkDotCodes(r: ResolvedDot, operands: ReadonlyArray<readonly [Uint8Array, string]>): Promise<void> {
    const formats = [r.fa.toJSON(), r.fb.toJSON()] as const;
    for (const [codes, argument] of operands) {
      if ((argument === "a" ? r.fa : r.fb).codeCount >= 256) continue;
      await this.#w.run(
        codes.length,
        (s, e, id): DotJob => ({
          op: "dot",
          id,
          first: s,
          kind: "check",
          formats,
          options: {},
          kernels: kernelStatus().enabled,
          a: codes.subarray(s, e),
          rows: 0,
          n: 0,
          k: 0,
          argument,
        }),
      );
    }
  }

  /**
   * dotRows(a, b, rows, cols, options) on the workers, the row pairs split between them: the same validation, typed
   * errors and results as the single-thread call (each row's dot product is computed whole, in one worker).
   */
  async dotRows(
    a: Uint8Array,
    b: Uint8Array,
    rows: number,
    cols: number,
    options: Omit<DotOptions, "length" | "packed"> & { out?: Float32Array },
  ): Promise<Float32Array> {
    this.#w.open();
    const r = dotRowsArgs(a, b, rows, cols, options, false);
    if (rows * cols < this.minElements) return dotRows(a, b, rows, cols, options);
    const given = options.out;
    requireSeparate(given, [
      [a, "a"],
      [b, "b"],
    ]);
    const target = given && keep(given);
    const sa = share(a);
    const sb = share(b);
    await this.#checkDotCodes(r, [
      [sa, "a"],
      [sb, "b"],
    ]);
    const fast = await this.#dotShared(r, sa, sb, cols, rows, rows, true, undefined);
    if (fast) return target ? copyBack(target, fast) : fast;
    const out = given && isShared(given) ? given : sharedArray(Float32Array, rows);
    const formats = [r.fa.toJSON(), r.fb.toJSON()] as const;
    const opts = dotJobOptions(options);
    const kernels = kernelStatus().enabled;
    await this.#w.run(
      rows,
      (i, j, id): DotJob => ({
        op: "dot",
        id,
        first: i * cols,
        kind: "rows",
        formats,
        options: opts,
        kernels,
        a: sa.subarray(i * cols, j * cols),
        b: sb.subarray(i * cols, j * cols),
        rows: j - i,
        n: j - i,
        k: cols,
        out: out.subarray(i, j),
      }),
      1,
    );
    return target ? copyBack(target, out) : out;
  }

  /**
   * matmul(a, b, m, n, k, options) on the workers: the rows of a split between them (or, when a has fewer rows than
   * there are threads, the rows of b), each result a whole dot product: the same validation, errors and results.
   */
  async matmul<T extends Float32Array | Uint16Array = Float32Array>(
    a: Uint8Array,
    b: Uint8Array,
    m: number,
    n: number,
    k: number,
    options: MatOptions & { out?: T },
    names?: MatNames,
  ): Promise<T> {
    this.#w.open();
    const small = m * n * k < this.minElements;
    const r = matmulArgs(a, b, m, n, k, options, small, names);
    if (small) return matmulChecked(a, b, m, n, k, options, r);
    const given = options.out;
    requireSeparate(given, [
      [a, "a"],
      [b, names?.b ?? "b"],
      [options.scales?.a, "options.scales.a"],
      [options.scales?.b, "options.scales.b"],
    ]);
    const target = given && keep<Float32Array | Uint16Array>(given);
    const sa = share(a);
    const sb = share(b);
    const scalesA = options.scales?.a && share(options.scales.a);
    const scalesB = options.scales?.b && share(options.scales.b);
    await this.#checkDotCodes(r, [
      [sa, "a"],
      [sb, names?.b ?? "b"],
    ]);
    const fast = await this.#dotShared(r, sa, sb, k, m, n, false, options.scales && { a: scalesA, b: scalesB });
    if (fast) {
      if (!(given instanceof Uint16Array)) return (target ? copyBack(target as () => Float32Array, fast) : fast) as T;
      return quantize(fast, BINARY16, { out: target!() as Uint16Array }) as T;
    }
    const type = (given instanceof Uint16Array ? Uint16Array : Float32Array) as ArrayType<Float32Array | Uint16Array>;
    const out = given && isShared(given) ? given : sharedArray(type, m * n);
    const formats = [r.fa.toJSON(), r.fb.toJSON()] as const;
    const opts = dotJobOptions(options);
    const kernels = kernelStatus().enabled;
    const blocks = Math.max(1, Math.ceil(k / r.ctx.block));
    const job = (
      id: number,
      first: number,
      pa: Uint8Array,
      pb: Uint8Array,
      rows: number,
      cols: number,
      sA: Uint8Array | undefined,
      sB: Uint8Array | undefined,
      part: Float32Array | Uint16Array,
    ): DotJob => ({
      op: "dot",
      id,
      first,
      kind: "matmul",
      formats,
      options: opts,
      kernels,
      a: pa,
      b: pb,
      rows,
      n: cols,
      k,
      scales: { a: sA, b: sB },
      out: part,
    });
    if (m >= this.#w.threads.length || m >= n) {
      await this.#w.run(
        m,
        (i, j, id) => job(id, i * k, sa.subarray(i * k, j * k), sb, j - i, n, rowScales(scalesA, m, i, j, blocks), scalesB, out.subarray(i * n, j * n)),
        1,
      );
    } else {
      // Few rows of a: each worker takes a range of b's rows into a part of its own, interleaved into out after.
      const parts: Array<[number, number, Float32Array | Uint16Array]> = [];
      await this.#w.run(
        n,
        (i, j, id) => {
          const part = sharedArray(type, m * (j - i));
          parts.push([i, j, part]);
          return job(id, 0, sa, sb.subarray(i * k, j * k), m, j - i, scalesA, rowScales(scalesB, n, i, j, blocks), part);
        },
        1,
      );
      for (const [i, j, part] of parts) for (let row = 0; row < m; row++) out.set(part.subarray(row * (j - i), (row + 1) * (j - i)), row * n + i);
    }
    return (target ? copyBack(target, out) : out) as T;
  }
}
