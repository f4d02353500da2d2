// The few WebGPU objects the kernels use, typed structurally (a browser's GPUDevice and GPUBuffer satisfy them), so
// the package's types need neither the DOM library nor @webgpu/types; pipelines cached per device and shader text;
// one dispatch helper.

/** A GPUBuffer: the kernels read `size` and bind it. */
export interface GpuBuffer {
  readonly size: number;
  destroy(): void;
}

/** The GPUDevice methods the kernels call. */
export interface GpuDevice {
  createBuffer(descriptor: { size: number; usage: number; mappedAtCreation?: boolean }): GpuBuffer;
  createShaderModule(descriptor: { code: string; label?: string }): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: the descriptor and pipeline types are WebGPU's own
  createComputePipeline(descriptor: any): any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  createBindGroup(descriptor: any): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  createCommandEncoder(): any;
  readonly queue: {
    writeBuffer(buffer: GpuBuffer, offset: number, data: ArrayBufferView): void;
    // biome-ignore lint/suspicious/noExplicitAny: command buffers are WebGPU's own
    submit(commands: any[]): void;
  };
}

/** GPUBufferUsage flags (the global is absent where WebGPU is). */
export const USAGE = { MAP_READ: 1, COPY_SRC: 4, COPY_DST: 8, UNIFORM: 64, STORAGE: 128 } as const;

/** Invocations per workgroup of every kernel. */
export const WORKGROUP = 64;
/** Workgroups per dispatch dimension (WebGPU's guaranteed maxComputeWorkgroupsPerDimension). */
const MAX_GROUPS = 65535;

const pipelines = new WeakMap<GpuDevice, Map<string, unknown>>();

// biome-ignore lint/suspicious/noExplicitAny: a GPUComputePipeline
function pipeline(device: GpuDevice, code: string): any {
  let byCode = pipelines.get(device);
  if (!byCode) pipelines.set(device, (byCode = new Map()));
  let p = byCode.get(code);
  if (!p) {
    p = device.createComputePipeline({ layout: "auto", compute: { module: device.createShaderModule({ code, label: "minifloat" }), entryPoint: "main" } });
    byCode.set(code, p);
  }
  return p;
}

/**
 * The WGSL prelude of every kernel: `params` (a uniform of four u32) and `index(gid)`, the invocation's linear index
 * over a 2-D grid of workgroups (more than 65 535 of them need the second dimension).
 */
export const PRELUDE = `struct Params { n: u32, a: u32, b: u32, c: u32 }
@group(0) @binding(0) var<uniform> params: Params;
fn index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
  return gid.y * groups.x * ${WORKGROUP}u + gid.x;
}
`;

/**
 * Runs `code` (entry point `main(@builtin(global_invocation_id) gid, @builtin(num_workgroups) groups)`) over
 * `invocations` invocations, with params = [invocations, a, b, c] at binding 0 and `buffers` at bindings 1….
 */
export function dispatch(device: GpuDevice, code: string, invocations: number, extra: readonly number[], buffers: readonly GpuBuffer[]): void {
  const p = pipeline(device, code);
  const params = device.createBuffer({ size: 16, usage: USAGE.UNIFORM | USAGE.COPY_DST });
  device.queue.writeBuffer(params, 0, new Uint32Array([invocations, extra[0] ?? 0, extra[1] ?? 0, extra[2] ?? 0]));
  const entries = [params, ...buffers].map((buffer, binding) => ({ binding, resource: { buffer } }));
  const bindGroup = device.createBindGroup({ layout: p.getBindGroupLayout(0), entries });
  const groups = Math.ceil(invocations / WORKGROUP);
  const x = Math.min(groups, MAX_GROUPS);
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(p);
  pass.setBindGroup(0, bindGroup);
  if (groups > 0) pass.dispatchWorkgroups(x, Math.ceil(groups / x));
  pass.end();
  device.queue.submit([encoder.finish()]);
  params.destroy();
}

/** Copies the first `bytes` of a storage buffer (COPY_SRC usage) to the CPU. */
export async function readBuffer(device: GpuDevice, buffer: GpuBuffer, bytes = buffer.size): Promise<ArrayBuffer> {
  const size = Math.ceil(bytes / 4) * 4;
  const staging = device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  const s = staging as GpuBuffer & { mapAsync(mode: number): Promise<void>; getMappedRange(): ArrayBuffer; unmap(): void };
  await s.mapAsync(1);
  const copy = s.getMappedRange().slice(0, bytes);
  s.unmap();
  s.destroy();
  return copy;
}

/** A storage buffer holding `data` (padded to 4 bytes), usable as kernel input and copy source. */
export function uploadBuffer(device: GpuDevice, data: ArrayBufferView): GpuBuffer {
  const size = Math.max(4, Math.ceil(data.byteLength / 4) * 4);
  const buffer = device.createBuffer({ size, usage: USAGE.STORAGE | USAGE.COPY_DST | USAGE.COPY_SRC });
  const bytes = new Uint8Array(size);
  bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  device.queue.writeBuffer(buffer, 0, bytes);
  return buffer;
}
