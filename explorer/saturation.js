// (d) of the explorer: the dot-product saturation experiment (saturationExperiment) and the worked example (dot).
import * as mf from "minifloat";
import { saturationExperiment } from "minifloat/p3109";
import { $, el, fieldNumber, fmtNumber, pct, showError } from "./common.js";

export function runSaturation() {
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
    seed: fieldNumber("sat-seed"),
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

export function renderExamples() {
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
