// Progress of a long conversion: a redrawn bar on a terminal, one plain line per finished tensor otherwise.
import type { CliIO } from "./io.js";

export class Progress {
  private done = 0;
  private lastDraw = 0;

  constructor(
    private readonly io: CliIO,
    private readonly total: number,
    private readonly tensors: number,
  ) {}

  /** `elements` more elements of tensor `index` (0-based) are done. */
  advance(elements: number, index: number, name: string): void {
    this.done += elements;
    if (!this.io.isTTY) return;
    const now = Date.now();
    if (now - this.lastDraw < 100 && this.done < this.total) return;
    this.lastDraw = now;
    const fraction = this.total === 0 ? 1 : this.done / this.total;
    const width = 30;
    const filled = Math.round(width * fraction);
    this.io.stderr(
      `\r\x1b[K[${"=".repeat(filled)}${" ".repeat(width - filled)}] ${(100 * fraction).toFixed(1).padStart(5)}%  ${index + 1}/${this.tensors} ${name}`,
    );
  }

  /** Tensor `index` is complete. */
  finished(index: number, name: string, summary: string): void {
    if (!this.io.isTTY) this.io.stderr(`[${index + 1}/${this.tensors}] ${name}: ${summary}\n`);
  }

  /** Clears the bar before the final report. */
  end(): void {
    if (this.io.isTTY) this.io.stderr("\r\x1b[K");
  }
}
