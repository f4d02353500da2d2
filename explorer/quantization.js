// (c) of the explorer: the relative error of N samples from a distribution quantized into the format, as a
// histogram and statistics.
import * as mf from "minifloat";
import { $, MAX_K, chartWidth, el, exactText, fmtNumber, pct, showError } from "./common.js";

/** A small seeded generator (mulberry32) for the samples; the library's projection does the rest. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/** n samples in float64 (quantize rounds float64 once): a scale beyond float32's range must not flush or overflow them. */
function samples(dist, scale, n) {
  const u = generator(12345);
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (dist === "normal") x[i] = scale * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    else if (dist === "uniform") x[i] = scale * (2 * u() - 1);
    else if (dist === "loguniform") x[i] = (u() < 0.5 ? -1 : 1) * scale * 2 ** (-20 * u());
    else {
      const v = u() - 0.5;
      x[i] = -scale * Math.sign(v) * Math.log(1 - 2 * Math.abs(v));
    }
  }
  return x;
}

/** Quantizes the samples the controls describe into f; codeValues() gives f's values per code ({ values, exact }). */
export function runQuantization(f, codeValues) {
  const chart = $("hist-chart");
  const stats = $("quant-stats");
  chart.replaceChildren();
  stats.replaceChildren();
  showError("quant-error", undefined);
  if (f.K > MAX_K) {
    stats.append(el("dt", { text: "not shown" }), el("dd", { text: `the explorer measures formats of up to ${MAX_K} bits` }));
    return;
  }
  try {
    const n = Number($("samples").value);
    const scale = Number($("scale").value);
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new RangeError("Samples N: allowed an integer in [1, 1000000]");
    if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError("Scale: allowed a positive finite number");
    const x = samples($("dist").value, scale, n);
    const options = {};
    if ($("rounding").value) options.rounding = $("rounding").value;
    if ($("saturation").value) options.saturation = $("saturation").value;
    if (options.rounding?.startsWith("Stochastic")) Object.assign(options, { stochasticBits: Number($("sbits").value), seed: 1 });
    if (options.saturation && !options.rounding) options.rounding = "NearestTiesToEven";
    const started = performance.now();
    const codes = mf.quantize(x, f, options);
    const ms = performance.now() - started;
    const { values, exact } = codeValues();
    const maxFinite = values[f.maxFiniteCode];
    const R = 2 ** (1 - f.P);
    const BINS = 40;
    const bins = new Array(BINS).fill(0);
    let below = 0,
      above = 0,
      nonFinite = 0,
      saturated = 0,
      flushed = 0,
      zeros = 0,
      finite = 0;
    let sum2 = 0,
      rel2 = 0,
      maxErr = 0,
      maxRel = 0;
    for (let i = 0; i < n; i++) {
      const xi = x[i];
      const q = values[codes[i]];
      if (Math.abs(xi) > maxFinite) saturated++;
      if (xi !== 0 && q === 0) flushed++;
      if (!Number.isFinite(q)) {
        nonFinite++;
        continue;
      }
      finite++;
      const err = q - xi;
      sum2 += err * err;
      maxErr = Math.max(maxErr, Math.abs(err));
      if (xi === 0) {
        zeros++;
        continue;
      }
      const r = err / Math.abs(xi);
      rel2 += r * r;
      maxRel = Math.max(maxRel, Math.abs(r));
      if (r < -R) below++;
      else if (r > R) above++;
      else bins[Math.min(BINS - 1, Math.floor(((r + R) / (2 * R)) * BINS))]++;
    }
    drawHistogram(chart, bins, below, above, R, f);
    const rows = [
      ["samples", `${n} (${$("dist").selectedOptions[0].textContent}, scale ${scale})`],
      ["projection", `${options.rounding ?? "format default"}, ${options.saturation ?? "format default"}`],
      ["RMSE", `${fmtNumber(Math.sqrt(sum2 / Math.max(1, finite)))} (absolute, over ${finite} finite results)`],
      ["max error", fmtNumber(maxErr)],
      ["RMS relative error", fmtNumber(Math.sqrt(rel2 / Math.max(1, finite - zeros)))],
      ["max relative error", fmtNumber(maxRel)],
      ["% saturated", `${pct(saturated / n)} (|x| > MaxFinite = ${exactText(exact[f.maxFiniteCode])})`],
      ["% flushed", `${pct(flushed / n)} (x ≠ 0 quantized to 0)`],
      ["non-finite results", `${nonFinite} (±Inf or NaN)`],
      ["quantize", `${ms.toFixed(1)} ms (kernels: ${mf.kernelStatus().available})`],
    ];
    for (const [k, v] of rows) stats.append(el("dt", { text: k }), el("dd", { text: v }));
    document.body.dataset.quantized = String(n);
  } catch (error) {
    showError("quant-error", error);
  }
}

function drawHistogram(chart, bins, below, above, R, f) {
  const W = chartWidth(),
    H = 260,
    left = 60,
    right = 20,
    top = 22,
    bottom = 44;
  // The y scale follows the bins within ±R; the outlier bars are capped at the top (their counts are printed).
  const maxCount = Math.max(1, ...bins);
  const slots = bins.length + 4; // an outlier bar and a gap on each side
  const slotW = (W - left - right) / slots;
  const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "hist-svg-title" });
  svg.append(el("svg:title", { id: "hist-svg-title", text: `Histogram of the relative error (q − x)/|x| in ${f.name}` }));
  const yOf = (c) => H - bottom - (Math.min(c, maxCount) / maxCount) * (H - top - bottom);
  const bar = (slot, count, color, label) => {
    svg.append(
      el(
        "svg:rect",
        {
          class: "bar",
          x: (left + slot * slotW + 1).toFixed(2),
          y: yOf(count).toFixed(2),
          width: (slotW - 2).toFixed(2),
          height: (H - bottom - yOf(count)).toFixed(2),
          fill: color,
        },
        el("svg:title", { text: `${label}: ${count}` }),
      ),
    );
  };
  bar(0, below, "#b3261e", `relative error < −2^${1 - f.P}`);
  bins.forEach((c, i) => {
    const a = -R + (2 * R * i) / bins.length;
    bar(i + 2, c, "#7aa7d6", `[${fmtNumber(a)}, ${fmtNumber(a + (2 * R) / bins.length)})`);
  });
  bar(slots - 1, above, "#b3261e", `relative error > 2^${1 - f.P}`);
  svg.append(el("svg:line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, stroke: "#57606a" }));
  svg.append(el("svg:line", { x1: left, y1: top, x2: left, y2: H - bottom, stroke: "#57606a" }));
  const ticks = [
    [2, `−2^${1 - f.P}`, "middle"],
    [2 + bins.length / 2, "0", "middle"],
    [2 + bins.length, `2^${1 - f.P}`, "middle"],
  ];
  for (const [slot, text, anchor] of ticks) {
    const x = left + slot * slotW;
    svg.append(el("svg:line", { x1: x, y1: H - bottom, x2: x, y2: H - bottom + 5, stroke: "#57606a" }));
    svg.append(el("svg:text", { x, y: H - bottom + 18, "text-anchor": anchor, text }));
  }
  // The outlier bars (red) collect everything beyond ±R: saturation, flushing, large subnormal errors.
  svg.append(el("svg:text", { x: left + 1.5 * slotW, y: top + 12, fill: "#b3261e", text: `◀ ${below} below −R` }));
  svg.append(el("svg:text", { x: W - right - 1.5 * slotW, y: top + 12, "text-anchor": "end", fill: "#b3261e", text: `${above} above R ▶` }));
  svg.append(
    el("svg:text", {
      x: (left + W - right) / 2,
      y: H - 6,
      "text-anchor": "middle",
      text: `relative error (q − x)/|x|, R = 2^${1 - f.P} (one unit in the last place at the bottom of a binade)`,
    }),
  );
  svg.append(el("svg:text", { x: left - 6, y: yOf(maxCount) + 4, "text-anchor": "end", text: String(maxCount) }));
  svg.append(el("svg:text", { x: left - 6, y: H - bottom + 4, "text-anchor": "end", text: "0" }));
  svg.append(
    el("svg:text", { x: 14, y: (top + H - bottom) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(top + H - bottom) / 2})`, text: "samples" }),
  );
  chart.append(svg);
}
