// The header of a safetensors file the benchmarks build: its 8-byte length, then the JSON padded with spaces so the
// data starts 8-byte aligned. Opens `path` for writing and returns the descriptor, positioned at the data.
import { openSync, writeSync } from "node:fs";

export function openWithHeader(path, header) {
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(path, "w");
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, length);
  writeSync(fd, json);
  return fd;
}
