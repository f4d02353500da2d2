// Reads one tensor of a remote safetensors file and posts its progress, then its float32 values (transferred).
import { openSafetensors } from "../../build/browser/safetensors.js";

self.onmessage = async ({ data: { url, name } }) => {
  try {
    const reader = await openSafetensors(url, { onProgress: ({ loaded, total }) => self.postMessage({ loaded, total }) });
    try {
      const read = await reader.readValues(reader.tensor(name));
      const values = read instanceof Float32Array ? read : Float32Array.from(read); // F64 tensors: to float32 here
      self.postMessage({ values }, [values.buffer]);
    } finally {
      await reader.close();
    }
  } catch (e) {
    self.postMessage({ error: `${e.name}: ${e.message}` });
  }
};
