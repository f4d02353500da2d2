// The code storage of MiniFloatArray: one block of Wasm memory shared by an array and its subarrays, so bulk
// kernels read and write it in place. Without the kernels (no WebAssembly, or useKernels(false)) it is an ordinary
// typed array and the same API runs on the TypeScript reference.
import { ArgumentTypeError } from "../errors.js";
import { kernels } from "../wasm/instance.js";
import { WasmArray } from "../wasm/memory.js";

export type Codes = Uint8Array | Uint16Array;
export type CodesType = typeof Uint8Array | typeof Uint16Array;

/**
 * Safety net only: a storage that became unreachable without free() returns its block to the allocator. Explicit
 * free() is the contract; a code view kept past the last reference to its arrays aliases whatever reuses the block.
 */
const unreleased = /* @__PURE__ */ new FinalizationRegistry<WasmArray<Codes>>((block) => block.free());

/** The error of any use of an array after free(). */
export function freedError(): ArgumentTypeError {
  return new ArgumentTypeError("array", "was freed; allowed: a MiniFloatArray before free() of it (or of the array it is a subarray of)");
}

export class CodeStorage {
  #wasm: WasmArray<Codes> | undefined;
  #plain: Codes | undefined;
  /** False after free(); a plain field because every element access of every view of the storage reads it. */
  live = true;

  constructor(type: CodesType, length: number) {
    if (kernels()) {
      this.#wasm = new WasmArray<Codes>(type, length, "length");
      this.#wasm.array.fill(0);
      unreleased.register(this, this.#wasm, this);
    } else {
      this.#plain = new type(length);
    }
  }

  /** All codes, as a view created after the last growth of Wasm memory (earlier views are detached). */
  get codes(): Codes {
    const codes = this.#wasm ? this.#wasm.array : this.#plain;
    if (!codes) throw freedError();
    return codes;
  }

  free(): void {
    if (this.#wasm) {
      unreleased.unregister(this);
      this.#wasm.free();
    }
    this.#wasm = undefined;
    this.#plain = undefined;
    this.live = false;
  }
}
