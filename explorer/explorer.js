// The format explorer: value table, dynamic range, quantization error and the dot-product saturation experiment of any
// minifloat format, all computed in the page by the browser bundle. Plain DOM and SVG, no framework.
import * as mf from "minifloat";
import { OVERFLOW_MODES } from "minifloat/p3109";
import { $, MAX_K, NARROW, approx, bitLength, chartWidth, decimalText, el, exactText, fieldNumber, fmtLog, hexFloat, log2Exact, showError } from "./common.js";
import { runQuantization } from "./quantization.js";
import { renderExamples, runSaturation } from "./saturation.js";
import { readUrl, showUrlNotes, writeUrl } from "./url-state.js";

const ROWS_PER_PAGE = 256;
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
    const f = TESLA_NEEDS_BIAS.test(trimmed) ? mf.format(trimmed, { bias: fieldNumber("bias") }) : mf.format(trimmed);
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
    runQuantization(state.fmt, codeValues);
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
    return Object.is(v, -0) ? "-0" : decimalText(v);
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
  const W = chartWidth(),
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

function niceStep(span, maxTicks) {
  for (const s of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]) if (span / s <= maxTicks) return s;
  return 20000;
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
  // A page field holding no whole number (1.3, empty) shows the nearest page, or the current one.
  $("page").addEventListener("change", () => {
    const n = Number($("page").value);
    gotoPage($("page").value.trim() !== "" && Number.isFinite(n) ? Math.round(n) - 1 : state.page);
  });
  $("goto").addEventListener("input", () => $("goto").setCustomValidity(""));
  $("goto-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("goto").value.trim();
    const code = /^(0x)?[0-9a-f]+$/i.test(text) ? Number.parseInt(text.replace(/^0x/i, ""), 16) : Number.NaN;
    if (!Number.isInteger(code) || code >= state.fmt.codeCount) {
      $("goto").setCustomValidity(`a code in hex, 0x0…${hex(state.fmt.codeCount - 1, state.fmt)}`);
      $("goto").reportValidity();
      return;
    }
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
    runQuantization(state.fmt, codeValues);
  });
  $("sat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSaturation();
  });

  // Every control change goes into the URL (the format and the page also from choose and gotoPage).
  document.addEventListener("change", syncUrl);
  // Charts are drawn for the width class of the screen (see chartWidth): redraw them when it changes.
  NARROW.addEventListener("change", () => {
    renderRange();
    runQuantization(state.fmt, codeValues);
  });
  openLink(readUrl());
  renderExamples();
  window.explorerReady = true;
}

main().catch((error) => {
  showError("format-error", error);
  window.explorerError = String(error?.stack ?? error);
});
