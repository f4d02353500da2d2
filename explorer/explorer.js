// The format explorer: value table, dynamic range, quantization error and the dot-product saturation experiment of any
// minifloat format, all computed in the page by the browser bundle. Plain DOM and SVG, no framework.
import * as mf from "minifloat";
import { OVERFLOW_MODES, saturationExperiment } from "minifloat/p3109";
import { readUrl, showUrlNotes, writeUrl } from "./url-state.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const ROWS_PER_PAGE = 256;
/** Value tables, ranges and error histograms cover formats of up to 16 bits (binary32/64 have too many codes). */
const MAX_K = 16;
const FAMILY_LABELS = {
  P3109: "IEEE P3109",
  IEEE: "IEEE 754",
  OCP: "OCP / ml_dtypes",
  FNUZ: "FNUZ (ml_dtypes, ONNX)",
  MX: "OCP MX element types",
  Tesla: "Tesla CFloat",
};
const P3109_EXAMPLES = [
  "Binary8p1se",
  "Binary8p3se",
  "Binary8p3sf",
  "Binary8p4se",
  "Binary8p4sf",
  "Binary8p5se",
  "Binary8p3ue",
  "Binary6p3se",
  "Binary4p2sf",
  "Binary16p11se",
];
const TESLA_NEEDS_BIAS = /^(cfloat8_1_[45]_[32]|cfloat16_shp)$/i;
const DEFAULT_FORMAT = "Binary8p3se";

/** name: the format name as chosen or typed (what a link carries); page: of the value table, from 0. */
const state = { fmt: undefined, name: DEFAULT_FORMAT, page: 0, values: undefined };

const syncUrl = () => writeUrl({ name: state.name, defaultName: DEFAULT_FORMAT, page: state.page, biased: TESLA_NEEDS_BIAS.test(state.name) });

// ---------- helpers ----------

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

function showError(id, error) {
  const box = $(id);
  box.hidden = error === undefined;
  box.textContent = error === undefined ? "" : `${error.name ?? "Error"}: ${error.message ?? error}`;
}

function bitLength(m) {
  return m === 0n ? 0 : m.toString(2).length;
}

/** An exact value as a hex float (0x1.8p-16383), for values a float64 cannot hold. */
function hexFloat(x) {
  const n = bitLength(x.significand);
  let frac = x.significand - (1n << BigInt(n - 1));
  let bits = n - 1;
  while (bits % 4) {
    frac <<= 1n;
    bits++;
  }
  const digits = bits
    ? "." +
      frac
        .toString(16)
        .padStart(bits / 4, "0")
        .replace(/0+$/, "")
    : "";
  return `${x.sign < 0 ? "-" : ""}0x1${digits === "." ? "" : digits}p${x.exponent + n - 1}`;
}

/** An exact value as a float64 (the nearest, possibly 0 or ±∞ outside float64's range): for charts and errors. */
function approx(x) {
  if (x.kind === "nan") return NaN;
  if (x.kind === "infinity") return x.sign * Infinity;
  if (x.significand === 0n) return x.sign < 0 ? -0 : 0;
  const n = bitLength(x.significand);
  const top = Number(x.significand >> BigInt(Math.max(0, n - 53)));
  return x.sign * top * 2 ** (x.exponent + Math.max(0, n - 53));
}

/** log2 of a positive exact value (floating point, for the axis). */
function log2Exact(x) {
  const n = bitLength(x.significand);
  const top = Number(x.significand >> BigInt(Math.max(0, n - 53)));
  return Math.log2(top) + x.exponent + Math.max(0, n - 53);
}

function fmtNumber(v, digits = 4) {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e6 ? Number(v.toPrecision(digits)).toString() : v.toExponential(digits - 1);
}

/** A log2 position: exact integers as they are, others to 3 decimals. */
const fmtLog = (l) => (Number.isInteger(l) ? String(l) : l.toFixed(3));
const pct = (share) => `${(100 * share).toFixed(2)} %`;
const hex = (code, f) => `0x${code.toString(16).padStart(Math.ceil(f.K / 4), "0")}`;

// ---------- format selection ----------

function fillFormatSelect() {
  const groups = new Map();
  const seen = new Map();
  for (const name of mf.registeredNames()) {
    const f = mf.format(name);
    if (!seen.has(f)) seen.set(f, []);
    if (name !== f.name.toLowerCase()) seen.get(f).push(name);
  }
  for (const [f, aliases] of seen) {
    if (!groups.has(f.family)) groups.set(f.family, []);
    groups
      .get(f.family)
      .push({ value: f.name, label: aliases.length ? `${f.name} (${aliases.map((a) => (a.toUpperCase() === a ? a : a.toUpperCase())).join(", ")})` : f.name });
  }
  groups.set(
    "P3109",
    P3109_EXAMPLES.map((n) => ({ value: n, label: n })),
  );
  const tesla = groups.get("Tesla") ?? [];
  groups.set("Tesla", [...["cfloat8_1_4_3", "cfloat8_1_5_2", "cfloat16_shp"].map((n) => ({ value: n, label: `${n} (bias from the field)` })), ...tesla]);
  const select = $("format");
  for (const family of ["P3109", "OCP", "FNUZ", "MX", "IEEE", "Tesla"]) {
    const group = el("optgroup", { label: FAMILY_LABELS[family] });
    for (const o of groups.get(family) ?? []) group.append(el("option", { value: o.value, text: o.label }));
    select.append(group);
  }
  select.append(el("optgroup", { label: "Typed" }, el("option", { value: "", text: "(typed name)" })));
}

/**
 * Resolves a name (with the bias field for Tesla formats) and redraws everything that depends on the format; returns
 * the error for a name the library refuses (shown under the controls), else undefined.
 */
function choose(name) {
  try {
    const trimmed = name.trim();
    const f = TESLA_NEEDS_BIAS.test(trimmed) ? mf.format(trimmed, { bias: Number($("bias").value) }) : mf.format(trimmed);
    showError("format-error", undefined);
    state.fmt = f;
    state.name = trimmed;
    $("name").value = trimmed;
    state.page = 0;
    state.values = undefined;
    const option = [...$("format").options].find((o) => o.value.toLowerCase() === trimmed.toLowerCase());
    $("format").value = option ? option.value : "";
    renderSummary();
    renderTable();
    renderRange();
    runQuantization();
    document.body.dataset.format = f.name;
    syncUrl();
  } catch (error) {
    showError("format-error", error);
    return error;
  }
}

function renderSummary() {
  const f = state.fmt;
  const facts = [
    `${f.name}`,
    `family ${f.family}`,
    `K = ${f.K}`,
    `P = ${f.P}`,
    `bias = ${f.bias}`,
    `${f.signedness}, ${f.domain}`,
    `${f.exponentBits} exponent + ${f.trailingBits} trailing bits`,
    `subnormals ${!f.zero ? "none (no zero)" : f.P === 1 ? "none (P = 1)" : f.subnormals === "flush" ? "flushed to zero" : "gradual"}`,
  ];
  $("summary").textContent = facts.join(" · ");
}

// ---------- (a) value table ----------

function classify(f, code, x) {
  if (x.kind === "nan") return "nan";
  if (x.kind === "infinity") return "inf";
  if (x.significand === 0n) return "zero";
  const mag = f.signed ? code % f.signBit : code;
  return f.zero && mag < 2 ** f.trailingBits ? "subnormal" : "normal";
}

/** Bits as sign_exponent_trailing (no sign field in unsigned formats, as P3109 lays them out). */
function bitFields(f, code) {
  const mag = f.signed ? code % f.signBit : code;
  const t = mag % 2 ** f.trailingBits;
  const e = Math.floor(mag / 2 ** f.trailingBits);
  const parts = [];
  if (f.signed) parts.push(code >= f.signBit ? "1" : "0");
  parts.push(f.exponentBits ? e.toString(2).padStart(f.exponentBits, "0") : "");
  if (f.trailingBits) parts.push(t.toString(2).padStart(f.trailingBits, "0"));
  return { text: parts.filter((p) => p !== "").join("_"), e, t };
}

/** The seed tables' middle column: ±0b1.01*2^-2 (0b0.… for subnormals). */
function significandForm(f, cls, fields, negative) {
  if (cls !== "normal" && cls !== "subnormal") return "";
  const sub = cls === "subnormal";
  const trailing = f.trailingBits ? `.${fields.t.toString(2).padStart(f.trailingBits, "0")}` : "";
  const exponent = sub ? 1 - f.bias : fields.e - f.bias;
  return `${negative ? "-" : "+"}0b${sub ? "0" : "1"}${trailing}*2^${exponent}`;
}

function valueText(f, code, x) {
  if (x.kind === "nan") return "NaN";
  if (x.kind === "infinity") return x.sign > 0 ? "+Inf" : "-Inf";
  try {
    const v = mf.decode(code, f);
    return Object.is(v, -0) ? "-0" : String(v);
  } catch {
    return hexFloat(x); // a float64 cannot hold it
  }
}

function renderTable() {
  const f = state.fmt;
  const body = $("values").tBodies[0];
  body.replaceChildren();
  if (f.K > MAX_K) {
    $("pager").hidden = true;
    $("table-note").textContent = `${f.name} has 2^${f.K} codes: the explorer lists formats of up to ${MAX_K} bits.`;
    return;
  }
  const pages = pageCount(f);
  state.page = Math.min(Math.max(0, state.page), pages - 1);
  $("pager").hidden = pages === 1;
  $("page").max = String(pages);
  $("page").value = String(state.page + 1);
  $("page-count").textContent = `of ${pages}`;
  const first = state.page * ROWS_PER_PAGE;
  const last = Math.min(f.codeCount, first + ROWS_PER_PAGE);
  $("table-note").textContent = `${f.codeCount} codes${pages > 1 ? `; showing ${hex(first, f)}…${hex(last - 1, f)}` : ""}`;
  const rows = [];
  for (let code = first; code < last; code++) {
    const x = mf.decodeExact(code, f);
    const cls = classify(f, code, x);
    const fields = bitFields(f, code);
    const label = cls === "inf" ? (x.sign > 0 ? "+Inf" : "-Inf") : cls === "zero" && f.zero && fields.e === 0 && fields.t !== 0 ? "zero (flushed)" : cls;
    const row = el(
      "tr",
      { "data-code": hex(code, f), class: cls },
      el("th", { scope: "row", text: hex(code, f) }),
      el("td", { text: fields.text }),
      el("td", { text: significandForm(f, cls, fields, x.sign < 0) }),
      el("td", { class: "value", text: valueText(f, code, x) }),
      el("td", { text: label }),
    );
    rows.push(row);
  }
  body.append(...rows);
}

function gotoPage(page) {
  state.page = page;
  renderTable();
  syncUrl();
}

/** Pages of the value table of f (1 for formats without a table). */
const pageCount = (f) => (f.K > MAX_K ? 1 : Math.max(1, f.codeCount / ROWS_PER_PAGE));

// ---------- exact values of all codes (ranges, quantization errors) ----------

/** Float64 values of every code (nearest float64 where one cannot hold it) and per-code exact data. */
function codeValues() {
  if (state.values) return state.values;
  const f = state.fmt;
  const values = new Float64Array(f.codeCount);
  const exact = [];
  for (let code = 0; code < f.codeCount; code++) {
    const x = mf.decodeExact(code, f);
    exact.push(x);
    values[code] = approx(x);
  }
  state.values = { values, exact };
  return state.values;
}

// ---------- (b) dynamic range ----------

function renderRange() {
  const f = state.fmt;
  const chart = $("range-chart");
  chart.replaceChildren();
  if (f.K > MAX_K) {
    $("range-facts").textContent = `The explorer charts formats of up to ${MAX_K} bits.`;
    return;
  }
  const { exact } = codeValues();
  const counts = new Map();
  let minPos, maxFin, minNormal;
  for (let code = 0; code < f.codeCount; code++) {
    const x = exact[code];
    if (x.kind !== "finite" || x.sign < 0 || x.significand === 0n) continue;
    const k = bitLength(x.significand) - 1 + x.exponent;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    const l = log2Exact(x);
    if (minPos === undefined || l < minPos.l) minPos = { l, x };
    if (maxFin === undefined || l > maxFin.l) maxFin = { l, x };
    if (classify(f, code, x) === "normal" && (minNormal === undefined || l < minNormal.l)) minNormal = { l, x };
  }
  if (minPos === undefined) return;
  const lo = Math.floor(minPos.l) - 1;
  const hi = Math.floor(maxFin.l) + 2;
  const W = 960,
    H = 250,
    left = 50,
    right = 20,
    top = 34,
    bottom = 42;
  const xOf = (l) => left + ((l - lo) / (hi - lo)) * (W - left - right);
  const maxCount = Math.max(...counts.values());
  const yOf = (c) => H - bottom - (Math.min(c, maxCount) / maxCount) * (H - top - bottom);
  const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "range-svg-title" });
  svg.append(el("svg:title", { id: "range-svg-title", text: `Values per binade of ${f.name}, from 2^${lo} to 2^${hi}` }));
  // Bars: one per binade, or grouped binades (mean count) when there are more binades than pixels.
  const binades = hi - lo;
  const group = Math.max(1, Math.ceil(binades / 480));
  for (let k = lo; k < hi; k += group) {
    let sum = 0;
    for (let j = k; j < k + group; j++) sum += counts.get(j) ?? 0;
    if (!sum) continue;
    const mean = sum / group;
    const x0 = xOf(k),
      x1 = xOf(k + group);
    svg.append(
      el(
        "svg:rect",
        {
          x: x0.toFixed(2),
          y: yOf(mean).toFixed(2),
          width: Math.max(0.6, x1 - x0 - (x1 - x0 > 4 ? 1 : 0)).toFixed(2),
          height: (H - bottom - yOf(mean)).toFixed(2),
          fill: "#7aa7d6",
        },
        el("svg:title", { text: group === 1 ? `[2^${k}, 2^${k + 1}): ${sum} values` : `2^${k}…2^${k + group}: ${mean.toFixed(2)} values per binade` }),
      ),
    );
  }
  // Axes.
  svg.append(el("svg:line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, stroke: "#57606a" }));
  svg.append(el("svg:line", { x1: left, y1: top, x2: left, y2: H - bottom, stroke: "#57606a" }));
  const step = niceStep(hi - lo, 14);
  for (let k = Math.ceil(lo / step) * step; k <= hi; k += step) {
    svg.append(el("svg:line", { x1: xOf(k), y1: H - bottom, x2: xOf(k), y2: H - bottom + 5, stroke: "#57606a" }));
    svg.append(el("svg:text", { x: xOf(k), y: H - bottom + 18, "text-anchor": "middle", text: `2^${k}` }));
  }
  svg.append(el("svg:text", { x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle", text: "log2 |value|" }));
  svg.append(el("svg:text", { x: left - 6, y: yOf(maxCount) + 4, "text-anchor": "end", text: String(maxCount) }));
  svg.append(el("svg:text", { x: left - 6, y: H - bottom + 4, "text-anchor": "end", text: "0" }));
  svg.append(
    el("svg:text", {
      x: 14,
      y: (top + H - bottom) / 2,
      "text-anchor": "middle",
      transform: `rotate(-90 14 ${(top + H - bottom) / 2})`,
      text: "values / binade",
    }),
  );
  // Markers, labels staggered so close markers stay readable.
  const markers = [
    { name: "MinPositive", m: minPos, color: "#8a4b00" },
    ...(minNormal && minNormal.l !== minPos.l ? [{ name: "MinNormal", m: minNormal, color: "#116329" }] : []),
    { name: "MaxFinite", m: maxFin, color: "#b3261e" },
  ];
  markers.forEach(({ name, m, color }, i) => {
    const x = xOf(m.l);
    svg.append(el("svg:line", { x1: x, y1: top - 4, x2: x, y2: H - bottom, stroke: color, "stroke-width": 2, "stroke-dasharray": "4 3" }));
    const anchor = x > W - 160 ? "end" : x < left + 100 ? "start" : "middle";
    svg.append(el("svg:text", { x, y: i % 2 ? top - 8 : top - 20, "text-anchor": anchor, fill: color, text: `${name} ${exactText(m.x)}` }));
  });
  chart.append(svg);
  const decades = (maxFin.l - minPos.l) * Math.log10(2);
  $("range-facts").textContent =
    `MinPositive ${exactText(minPos.x)} = 2^${fmtLog(minPos.l)}, MinNormal ${minNormal ? exactText(minNormal.x) : "—"}, MaxFinite ${exactText(maxFin.x)} ${Number.isInteger(maxFin.l) ? "=" : "≈"} 2^${fmtLog(maxFin.l)}: ${fmtLog(maxFin.l - minPos.l)} binades (${decades.toFixed(2)} decades), ${[...counts.values()].reduce((a, b) => a + b, 0)} positive finite values.`;
}

/** A finite exact value: the float64 that holds it, or an exact hex float where none does. */
function exactText(x) {
  const v = approx(x);
  const exact = bitLength(x.significand) <= 53 && v !== 0 && Number.isFinite(v) && Math.abs(Math.log2(Math.abs(v))) < 1000;
  return exact ? String(v) : hexFloat(x);
}

function niceStep(span, maxTicks) {
  for (const s of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]) if (span / s <= maxTicks) return s;
  return 20000;
}

// ---------- (c) quantization error ----------

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

function samples(dist, scale, n) {
  const u = generator(12345);
  const x = new Float32Array(n);
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

function runQuantization() {
  const f = state.fmt;
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
  const W = 960,
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

// ---------- (d) saturation experiment ----------

function runSaturation() {
  showError("sat-error", undefined);
  const status = $("sat-status");
  const out = $("sat-results");
  out.replaceChildren();
  const mode = $("sat-mode").value;
  const options = {
    N: Number($("sat-n").value),
    blockSize: Number($("sat-blk").value),
    batches: 1,
    batchSize: Number($("sat-pairs").value),
    partials: $("sat-partials").value,
    seed: Number($("sat-seed").value),
  };
  status.textContent = "running…";
  // Let the status paint before the synchronous run.
  setTimeout(() => {
    try {
      const started = performance.now();
      const r = saturationExperiment(options);
      const ms = performance.now() - started;
      renderSaturation(out, r, mode, options);
      status.textContent = `${r.pairs} pairs of length ${options.N}, BLK ${options.blockSize}, ${options.partials} partials: ${(ms / 1000).toFixed(2)} s.`;
      document.body.dataset.saturation = "done";
    } catch (error) {
      status.textContent = "";
      showError("sat-error", error);
    }
  }, 20);
}

function renderSaturation(out, r, mode, options) {
  // Pairs without overflow give the same result in every mode: their RMS error follows from the totals.
  const clean = r.pairs - r.overflowedPairs;
  const rmsClean = clean ? Math.sqrt(Math.max(0, (r.rmsOvINF ** 2 * r.pairs - r.rmsOvINFOverflowed ** 2 * r.overflowedPairs) / clean)) : 0;
  const perMode = {
    OvSAT: { nan: 0, rms: fmtNumber(r.rmsOvSAT), max: fmtNumber(r.maxOvSAT), over: fmtNumber(r.rmsOvSATOverflowed) },
    OvINF: { nan: r.nanOvINF, rms: fmtNumber(r.rmsOvINF), max: fmtNumber(r.maxOvINF), over: fmtNumber(r.rmsOvINFOverflowed) },
    OvNAN: { nan: r.nanOvNAN, rms: "— (NaN)", max: "— (NaN)", over: "— (NaN)" },
  };
  const chosen = perMode[mode];
  const headline = el("p", { id: "sat-headline" });
  headline.textContent = `Under ${mode}: ${pct(r.inRange)} of the exact results are in range of ${options.partials}; partials overflowed in ${pct(r.inRangeOverflowed)} of those (${r.overflowedPairs} of ${r.pairs} pairs overflowed); NaN results: ${chosen.nan}; RMS error ${mode === "OvNAN" ? `${fmtNumber(rmsClean)} over the ${clean} non-NaN results` : chosen.rms}.`;
  const modes = ["OvSAT", "OvINF", "OvNAN"];
  const table = el("table", { class: "results" });
  table.append(
    el(
      "thead",
      {},
      el("tr", {}, el("th", { scope: "col", text: "" }), ...modes.map((m) => el("th", { scope: "col", class: m === mode ? "chosen" : "", text: m }))),
    ),
  );
  const body = el("tbody");
  const row = (label, cells) =>
    body.append(
      el("tr", {}, el("th", { scope: "row", text: label }), ...cells.map((c, i) => el("td", { class: modes[i] === mode ? "chosen" : "", text: String(c) }))),
    );
  row(
    "in-range results",
    modes.map(() => pct(r.inRange)),
  );
  row(
    "in range, partials overflowed",
    modes.map(() => pct(r.inRangeOverflowed)),
  );
  row(
    "NaN results",
    modes.map((m) => perMode[m].nan),
  );
  row(
    "RMS error, all pairs",
    modes.map((m) => perMode[m].rms),
  );
  row(
    "max error, all pairs",
    modes.map((m) => perMode[m].max),
  );
  row(
    `RMS error, ${r.overflowedPairs} overflowed pairs`,
    modes.map((m) => perMode[m].over),
  );
  row(
    `RMS error, ${clean} pairs without overflow`,
    modes.map(() => fmtNumber(rmsClean)),
  );
  table.append(body);
  const note = el("p", {
    class: "legend",
    text: "OvINF errors replace ±Inf by ±MaxFinite and NaN by 0 (the seed's §0.7); OvNAN results of overflowed pairs are NaN and have no error.",
  });
  out.append(headline, table, note);
}

function renderExamples() {
  const fmt = "float8_e4m3fn";
  const f = 224;
  const enc = (v) => Uint8Array.from(v, (x) => mf.encode(x, fmt));
  const ones = enc([f, f, f, f]);
  const cases = [
    ["[f −f f −f]·[f f f f], BLK 1", [f, -f, f, -f], 1],
    ["[−f −f f f]·[f f f f], BLK 1", [-f, -f, f, f], 1],
    ["[f f −f −f]·[f f f f], BLK 1", [f, f, -f, -f], 1],
    ["[f f]·[f f] + [−f −f]·[f f] (BLK 2)", [f, f, -f, -f], 2],
  ];
  const modes = ["OvSAT", "OvINF", "OvNAN"];
  const table = el("table", { class: "results" });
  table.append(
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: "computation (binary16 partials)" }),
        el("th", { scope: "col", text: "exact" }),
        ...modes.map((m) => el("th", { scope: "col", text: m })),
      ),
    ),
  );
  const body = el("tbody");
  for (const [label, a, blockSize] of cases) {
    const exact = mf.dot(enc(a), ones, { formats: fmt, overflow: "exact", blockSize });
    const cells = modes.map((overflow) => mf.dot(enc(a), ones, { formats: fmt, overflow, blockSize }));
    body.append(
      el(
        "tr",
        {},
        el("th", { scope: "row", text: label }),
        el("td", { text: String(exact) }),
        ...cells.map((v) => el("td", { text: Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v) })),
      ),
    );
  }
  table.append(body);
  $("sat-examples").replaceChildren(table);
}

// ---------- wiring ----------

/** Shows the view a link describes: its controls are set already; the format and page are checked here. */
function openLink(link) {
  const notes = link.notes;
  const refused = link.format === undefined ? undefined : choose(link.format);
  if (refused) notes.push(`format=${link.format} (${refused.message})`);
  if (link.format === undefined || refused) choose(DEFAULT_FORMAT);
  if (link.page !== undefined) {
    const pages = pageCount(state.fmt);
    const page = Number(link.page);
    if (/^\d+$/.test(link.page) && page >= 1 && page <= pages) gotoPage(page - 1);
    else notes.push(`page=${link.page} (allowed: ${pages === 1 ? "1" : `an integer in [1, ${pages}]`} for ${state.fmt.name})`);
  }
  showUrlNotes(notes);
  syncUrl(); // drops what was refused
  if (link.saturation) runSaturation();
}

function fillSelect(select, items, withDefault) {
  if (withDefault) select.append(el("option", { value: "", text: "(format default)" }));
  for (const item of items) select.append(el("option", { value: item, text: item }));
}

async function main() {
  await mf.initKernels();
  fillFormatSelect();
  fillSelect($("rounding"), mf.ROUNDINGS, true);
  fillSelect($("saturation"), mf.SATURATIONS, true);
  fillSelect($("sat-partials"), mf.PARTIALS_FORMATS, false);
  fillSelect($("sat-mode"), OVERFLOW_MODES, false);
  $("sat-mode").value = "OvINF";

  $("format").addEventListener("change", (e) => {
    if (e.target.value) {
      $("name").value = e.target.value;
      choose(e.target.value);
    }
  });
  $("name-form").addEventListener("submit", (e) => {
    e.preventDefault();
    choose($("name").value);
  });
  $("bias").addEventListener("change", () => TESLA_NEEDS_BIAS.test($("name").value.trim()) && choose($("name").value));
  $("page-prev").addEventListener("click", () => gotoPage(state.page - 1));
  $("page-next").addEventListener("click", () => gotoPage(state.page + 1));
  $("page").addEventListener("change", () => gotoPage(Number($("page").value) - 1));
  $("goto-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const code = Number.parseInt($("goto").value.trim().replace(/^0x/i, ""), 16);
    if (!Number.isInteger(code) || code < 0 || code >= state.fmt.codeCount) return;
    gotoPage(Math.floor(code / ROWS_PER_PAGE));
    const row = $("values").querySelector(`tr[data-code="${hex(code, state.fmt)}"]`);
    const cell = row?.querySelector("th");
    if (cell) {
      cell.tabIndex = -1; // focusable from script, so keyboard and screen-reader users land on the row
      cell.focus();
      cell.scrollIntoView({ block: "center" });
    }
  });
  $("quant-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runQuantization();
  });
  $("sat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSaturation();
  });

  // Every control change goes into the URL (the format and the page also from choose and gotoPage).
  document.addEventListener("change", syncUrl);
  openLink(readUrl());
  renderExamples();
  window.explorerReady = true;
}

main().catch((error) => {
  showError("format-error", error);
  window.explorerError = String(error?.stack ?? error);
});
