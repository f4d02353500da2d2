// Lists of formats the exhaustive tests sweep.
import { format, registeredNames } from "../src/index.js";

/** Every P3109 format Binary{K}p{P}{s|u}{e|f} with 3 ≤ K ≤ maxK. */
export function p3109Names(maxK: number): string[] {
  const names: string[] = [];
  for (let K = 3; K <= maxK; K++) {
    for (let P = 1; P <= K; P++) {
      for (const domain of ["e", "f"]) {
        if (P < K) names.push(`Binary${K}p${P}s${domain}`);
        names.push(`Binary${K}p${P}u${domain}`);
      }
    }
  }
  return names;
}

/** Every registered format of at most 8 bits and every P3109 format of at most 8 bits (each name once). */
export const EIGHT_BIT_FORMATS = [...new Set([...registeredNames().filter((n) => format(n).K <= 8), ...p3109Names(8)])];
