// The explorer's state in the page's query string (?format=binary16&page=61&dist=laplace…), so a view can be linked:
// read once on load, rewritten with history.replaceState after every change. A value the page cannot take falls back
// to the control's default and is listed in a visible note; nothing in a link can stop the page from loading.

const $ = (id) => document.getElementById(id);

/** Query key → control id. Selects accept their options' values; numbers their min, max and step (and `check`). */
const CONTROLS = [
  { key: "bias", id: "bias" },
  { key: "dist", id: "dist" },
  { key: "scale", id: "scale", check: (v) => v > 0, rule: "a positive finite number" },
  { key: "n", id: "samples" },
  { key: "rounding", id: "rounding" },
  { key: "sbits", id: "sbits" },
  { key: "saturation", id: "saturation" },
  { key: "satN", id: "sat-n" },
  { key: "blk", id: "sat-blk" },
  { key: "pairs", id: "sat-pairs" },
  { key: "partials", id: "sat-partials" },
  { key: "mode", id: "sat-mode" },
  { key: "seed", id: "sat-seed" },
];
/** Keys of the saturation experiment: a link that sets one runs the experiment on load. */
const SATURATION_KEYS = new Set(["satN", "blk", "pairs", "partials", "mode", "seed"]);

/** Each control's value before the URL is read: only values that differ from these go into the URL. */
let defaults;

/** What a control accepts, for the note. */
function allowed(control, field) {
  if (control instanceof HTMLSelectElement) return [...control.options].map((o) => o.value || "(empty: format default)").join(", ");
  if (field.rule) return field.rule;
  const integer = control.step === "1" ? "an integer" : "a number";
  return control.max ? `${integer} in [${control.min}, ${control.max}]` : `${integer} ≥ ${control.min}`;
}

/** Sets the control to text when it accepts it; returns whether it did (else the control keeps its default). */
function apply(control, field, text) {
  const before = control.value;
  control.value = text;
  // A select takes only its options' values; a number input empties itself on text that is not a number.
  let ok = control.value === text && text !== "";
  if (ok && control instanceof HTMLInputElement && control.type === "number") {
    ok = control.validity.valid && Number.isFinite(Number(text)) && (!field.check || field.check(Number(text)));
  }
  if (!ok) control.value = before;
  return ok;
}

/**
 * Restores the controls from the URL. Returns the linked format name and page (validated by the caller, which knows
 * which names and pages exist), whether the saturation experiment was linked, and the notes about refused values.
 */
export function readUrl() {
  defaults = Object.fromEntries(CONTROLS.map((c) => [c.key, $(c.id).value]));
  const params = new URLSearchParams(location.search);
  const notes = [];
  for (const field of CONTROLS) {
    const text = params.get(field.key);
    if (text === null) continue;
    const control = $(field.id);
    if (!apply(control, field, text)) notes.push(`${field.key}=${text} (allowed: ${allowed(control, field)})`);
  }
  const known = new Set(["format", "page", ...CONTROLS.map((c) => c.key)]);
  for (const key of params.keys()) if (!known.has(key)) notes.push(`${key} (not a setting of this page)`);
  return {
    format: params.get("format") ?? undefined,
    page: params.get("page") ?? undefined,
    saturation: [...params.keys()].some((k) => SATURATION_KEYS.has(k)),
    notes,
  };
}

/** Shows the refused parts of a link (or hides the note when there are none). */
export function showUrlNotes(notes) {
  const box = $("url-note");
  box.hidden = notes.length === 0;
  box.textContent = notes.length ? `Ignored from the link, defaults shown instead: ${notes.join("; ")}.` : "";
}

/** Rewrites the URL from the current view: the format name, the table page (from 1) and every changed control. */
export function writeUrl(view) {
  if (defaults === undefined) return; // before readUrl: the page is still loading its link
  const params = new URLSearchParams();
  if (view.name !== view.defaultName) params.set("format", view.name);
  if (view.page > 0) params.set("page", String(view.page + 1));
  for (const field of CONTROLS) {
    if (field.key === "bias" && !view.biased) continue;
    const control = $(field.id);
    const value = control.value;
    // A value the page refuses (empty, out of range) is not linked: the link would not restore it.
    if (value === "" || (control instanceof HTMLInputElement && !control.validity.valid)) continue;
    if (value !== defaults[field.key]) params.set(field.key, value);
  }
  const query = params.toString();
  history.replaceState(history.state, "", query ? `?${query}` : location.pathname);
}
