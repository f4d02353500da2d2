// npm run example:saturation — reproduces the dot-product saturation study "Exploring saturation in low-precision dot
// products" (a notebook; docs/blocks-and-dot.md): the worked examples with f = 224 in float8_e4m3fn and float16 partials, then the random
// experiment (N = 2048, rows scaled to a maximum of 192, v1 = |v1|, 100 × 1000 pairs, BLK = 16) next to the
// notebook's printed figures. Options: --batches <n> (default 100), --batch-size <n> (1000), --seed <n> (1).
import { parseArgs } from "node:util";
import { dot, encode } from "minifloat";
import { saturationExperiment } from "minifloat/p3109";

const { values: args } = parseArgs({
  options: { batches: { type: "string", default: "100" }, "batch-size": { type: "string", default: "1000" }, seed: { type: "string", default: "1" } },
});

const E4M3 = "float8_e4m3fn";
const f = encode(224, E4M3);
const m = encode(-224, E4M3);
const ones = Uint8Array.of(f, f, f, f);
const fmt = (v) => (Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v));
const run = (a, overflow, block) => fmt(dot(Uint8Array.from(a), ones, { formats: E4M3, partials: "binary16", overflow, blockSize: block }));

console.log("Worked examples (f = 224 in float8_e4m3fn, f·f = 50176, float16 partials; MaxFinite 65504)\n");
const rows = [
  ["[f -f f -f].[f f f f]", [f, m, f, m], 1, ["0", "0", "0"]],
  ["[-f -f f f].[f f f f]", [m, m, f, f], 1, ["34848", "-Inf", "NaN"]],
  ["[f f -f -f].[f f f f]", [f, f, m, m], 1, ["-34848", "+Inf", "NaN"]],
  ["[f f].[f f] + [-f -f].[f f]  (BLK = 2)", [f, f, m, m], 2, ["0", "NaN", "NaN"]],
];
console.log(`${"computation".padEnd(40)}${"OvSAT".padStart(9)}${"OvINF".padStart(9)}${"OvNAN".padStart(9)}${"exact".padStart(9)}   notebook (printed cells)`);
for (const [label, a, block, expected] of rows) {
  const got = ["OvSAT", "OvINF", "OvNAN", "exact"].map((mode) => run(a, mode, block));
  console.log(
    `${label.padEnd(40)}${got.map((g) => g.padStart(9)).join("")}   ${expected.join(" / ")}${got.slice(0, 3).join() === expected.join() ? "  ✓" : "  ✗"}`,
  );
}
console.log("\n(The notebook's summary table swaps the signs of the two infinite rows; its check cells and the arithmetic");
console.log(" give -Inf for [-f -f f f] and +Inf for [f f -f -f]. 'exact' is the exact dot product rounded once.)\n");

const batches = Number(args.batches);
const batchSize = Number(args["batch-size"]);
console.log(
  `Random experiment: N = 2048, ${batches} × ${batchSize} pairs, BLK = 16, seed ${args.seed} (counter-based generator; randn clipped to ±4, squared with sign)`,
);
const t0 = performance.now();
const r = saturationExperiment({ batches, batchSize, seed: Number(args.seed), onBatch: (done, total) => process.stderr.write(`\r  batch ${done}/${total}`) });
process.stderr.write("\n");
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const k = (x) => `${(x / 1000).toFixed(1)}k`;
const table = [
  ["in-range results (exact result finite in float16)", pct(r.inRange), "95.9 %"],
  ["in-range results whose partials overflowed", pct(r.inRangeOverflowed), "3.0 %"],
  ["NaNs under OvINF (cancelled infinities)", String(r.nanOvINF), "0"],
  ["NaNs under OvNAN (= pairs that overflowed)", String(r.nanOvNAN), "–"],
  [`RMS error OvSAT, overflowed pairs (${r.overflowedPairs})`, k(r.rmsOvSATOverflowed), "19.5k"],
  ["RMS error OvINF (±Inf → ±65504, NaN → 0), overflowed pairs", k(r.rmsOvINFOverflowed), "19.3k"],
  ["max error OvSAT / OvINF", `${k(r.maxOvSAT)} / ${k(r.maxOvINF)}`, "107.4k / 105.2k"],
  ["RMS error OvSAT / OvINF over all pairs", `${k(r.rmsOvSAT)} / ${k(r.rmsOvINF)}`, "–"],
];
console.log(`\n${"measure".padEnd(64)}${"this run".padStart(16)}${"notebook".padStart(18)}`);
for (const [label, ours, theirs] of table) console.log(`${label.padEnd(64)}${ours.padStart(16)}${theirs.padStart(18)}`);
console.log(`\n${r.pairs} dot products of length 2048 under three modes in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
console.log("The notebook's 'true' value is a float32 jnp.dot; ours is the exact dot product (exact in float64 here). Its RMS/max");
console.log("errors are taken over its `ovinf_best_fit` frame; we report them over the pairs whose partials overflowed, which");
console.log("matches their size, and over all pairs.");
