// Lists the tensors of a remote safetensors file and dequantizes one in a Web Worker (worker.mjs).
// From npm, import "minifloat/safetensors" (node_modules/minifloat/build/browser/safetensors.js).
import { openSafetensors } from "../../build/browser/safetensors.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

async function list(url) {
  $("status").textContent = `opening ${url}…`;
  const reader = await openSafetensors(url); // two small range requests: the header length, then the header
  try {
    const rows = reader.tensors.map((t) => {
      const row = document.createElement("tr");
      for (const text of [t.name, t.dtype, `[${t.shape.join(", ")}]`, t.format?.name ?? "integers"]) row.insertCell().textContent = text;
      const button = document.createElement("button");
      button.textContent = "dequantize";
      button.disabled = t.format === undefined;
      button.onclick = () => dequantize(url, t.name);
      row.insertCell().append(button);
      return row;
    });
    $("tensors").replaceChildren(...rows);
    $("status").textContent = `${reader.tensors.length} tensors, header ${reader.dataStart} bytes`;
  } finally {
    await reader.close();
  }
}

/** Float32 values of one tensor, read and converted in a worker; the progress bar follows its download. */
function dequantize(url, name) {
  const progress = $("progress");
  Object.assign(progress, { hidden: false, value: 0 });
  $("result").textContent = `reading ${name}…`;
  const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
  return new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      if (data.total !== undefined) return Object.assign(progress, { max: data.total, value: data.loaded });
      worker.terminate();
      const shown = data.values ? `${name}: ${data.values.length} values\n${[...data.values.subarray(0, 16)].join(" ")}` : data.error;
      $("result").textContent = shown;
      resolve();
    };
    worker.postMessage({ url, name });
  });
}

$("open").onsubmit = (event) => {
  event.preventDefault();
  list(new URL($("url").value, location.href).href).catch((e) => ($("status").textContent = `${e.name}: ${e.message}`));
};

// ?url=…&tensor=… opens (and dequantizes) at once; window.exampleDone tells tests the page has finished.
if (params.has("url")) {
  const url = new URL(params.get("url"), location.href).href;
  $("url").value = url;
  try {
    await list(url);
    if (params.has("tensor")) await dequantize(url, params.get("tensor"));
  } catch (e) {
    $("status").textContent = `${e.name}: ${e.message}`;
  }
  window.exampleDone = true;
}
