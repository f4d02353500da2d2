// The published package: `npm pack`, installed offline into a fresh folder under os.tmpdir(), imported (every
// subpath) by plain node scripts under the default and the browser export conditions, type-checked by consumers (one
// with the DOM lib, one Node-only and strict), and running examples/node-*.mjs (the README's Node examples) against
// the installed copy.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as built from "minifloat";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const examples = readdirSync(join(root, "examples")).filter((f) => /^node-.*\.mjs$/.test(f));
let work: string;
let app: string;

/** Runs a command; a failure reports its stdout and stderr (tsc prints its diagnostics on stdout). */
function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: "utf8",
      stdio: "pipe",
      env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** The subpaths of the exports map besides ".", each with a name it must export. */
const SUBPATHS = {
  "minifloat/p3109": "specialize",
  "minifloat/parallel": "createPool",
  "minifloat/safetensors": "SafetensorsReader",
  "minifloat/onnx": "quantizeOnnx",
  "minifloat/webgpu": "wgsl",
} as const;

/**
 * What the consumer script prints: decode/encode/quantize results, a MiniFloatArray round trip, every subpath's
 * export, and whether a P3109 operation given the main entry's Format throws the main entry's error classes.
 */
const CHECK = `
import { MiniFloatArray, decode, encode, format, quantize, kernelStatus, ArgumentTypeError, CodeRangeError, FormatError, ProjectionError } from "minifloat";
import * as p3109 from "minifloat/p3109";
import * as parallel from "minifloat/parallel";
import * as safetensors from "minifloat/safetensors";
import * as onnx from "minifloat/onnx";
import * as webgpu from "minifloat/webgpu";
const x = new Float32Array([0.1, -2.5, 1000, 3.3e-3, -0]);
const view = MiniFloatArray.from(x, "bfloat16");
const result = {
  entry: import.meta.resolve("minifloat").split("/node_modules/minifloat/")[1],
  decode: decode(0x5d, "Binary8p3se"),
  encode: [encode(233, "Binary8p4se"), encode(Number.NaN, "float8_e4m3fn"), encode(-0, "float8_e5m2")],
  quantize: Array.from(quantize(x, "float8_e4m3fn", { saturation: "SatFinite" })),
  stochastic: Array.from(quantize(x, "Binary8p3se", { rounding: "StochasticC", stochasticBits: 6, seed: 99 })),
  view: Array.from(view.toFloat32Array(), (v) => Object.is(v, -0) ? "-0" : v),
  kernels: kernelStatus().available,
  subpaths: [typeof p3109.${SUBPATHS["minifloat/p3109"]}, typeof parallel.${SUBPATHS["minifloat/parallel"]}, typeof safetensors.${SUBPATHS["minifloat/safetensors"]}, typeof onnx.${SUBPATHS["minifloat/onnx"]}, typeof webgpu.${SUBPATHS["minifloat/webgpu"]}],
  sharedClasses: (() => { try { p3109.specialize("Add", { operands: [format("Binary8p3se")], result: format("Binary8p3se") }); } catch (e) { return e instanceof CodeRangeError; } })(),
  sameClassObjects: [p3109, parallel, safetensors, webgpu].every((m) => m.ArgumentTypeError === ArgumentTypeError && m.CodeRangeError === CodeRangeError && m.FormatError === FormatError && m.ProjectionError === ProjectionError),
};
view.free();
console.log(JSON.stringify(result));
`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "minifloat-pack-"));
  const [packed] = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], root)) as { filename: string; files: { path: string }[] }[];
  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run(npm, ["install", "--offline", "--no-package-lock", join(work, packed!.filename)], app);
  writeFileSync(join(app, "check.mjs"), CHECK);
  for (const example of examples) copyFileSync(join(root, "examples", example), join(app, example));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm package", () => {
  it("installs offline with no dependencies, holding the bundles and the types", () => {
    const installed = join(app, "node_modules", "minifloat");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.exports["."]).toMatchObject({ types: "./build/types/index.d.ts", browser: "./build/browser/index.js", import: "./build/node/index.js" });
    expect(manifest.exports["./p3109"]).toMatchObject({
      types: "./build/types/p3109.d.ts",
      browser: "./build/browser/p3109.js",
      import: "./build/node/p3109.js",
    });
    expect(Object.keys(manifest.exports).sort()).toEqual([".", ...Object.keys(SUBPATHS).map((s) => s.replace("minifloat", "."))].sort());
    for (const file of [
      "build/node/index.js",
      "build/browser/index.js",
      "build/types/index.d.ts",
      "build/types/views/minifloat-array.d.ts",
      "build/types/p3109.d.ts",
      "README.md",
      "CHANGELOG.md",
    ]) {
      expect(existsSync(join(installed, file)), file).toBe(true);
    }
    expect(readdirSync(join(app, "node_modules")).filter((d) => !d.startsWith("."))).toEqual(["minifloat"]);
    expect(existsSync(join(installed, "src"))).toBe(false);
  });

  it("runs from node with the same results as the repository build, under the default and browser conditions", () => {
    const x = new Float32Array([0.1, -2.5, 1000, 3.3e-3, -0]);
    const expected = {
      decode: 160,
      encode: [0x7f, 0x7f, 0x80],
      quantize: Array.from(built.quantize(x, "float8_e4m3fn", { saturation: "SatFinite" })),
      stochastic: Array.from(built.quantize(x, "Binary8p3se", { rounding: "StochasticC", stochasticBits: 6, seed: 99 })),
      view: [0.10009765625, -2.5, 1000, 0.0032958984375, "-0"],
      kernels: true,
      subpaths: Object.keys(SUBPATHS).map(() => "function"),
      sharedClasses: true,
      sameClassObjects: true,
    };
    expect(expected.quantize).toEqual([0x1d, 0xc2, 0x7e, 0x02, 0x80]);
    const asNode = JSON.parse(run(process.execPath, ["check.mjs"], app));
    expect(asNode).toEqual({ ...expected, entry: "build/node/index.js" });
    const asBrowser = JSON.parse(run(process.execPath, ["--conditions=browser", "check.mjs"], app));
    expect(asBrowser).toEqual({ ...expected, entry: "build/browser/index.js" });
  });

  it("type-checks a TypeScript consumer against build/types through the exports map", () => {
    const consumer = [
      `import { BFloat16Array, MiniFloatArray, type Format } from "minifloat";`,
      `const a: MiniFloatArray = BFloat16Array.from([1, 2]);`,
      `const f: Format = a.format;`,
      `export const n: number = a.get(0) + f.K;`,
      `// @ts-expect-error set() takes numbers`,
      `a.set(0, "1");`,
      `{`,
      `  using b = BFloat16Array.from(a);`,
      `  b.fill(1);`,
      `}`,
    ];
    writeFileSync(join(app, "consumer.ts"), consumer.join("\n"));
    // Symbol.dispose (for `using`) is typed by lib esnext.disposable; skipLibCheck stays off so the .d.ts are checked.
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      lib: ["es2022", "dom", "esnext.disposable"],
      types: [],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    expect(run(join(root, "node_modules", ".bin", "tsc"), ["-p", app], app)).toBe("");
  });

  // The shipped .d.ts name no DOM-only type (src/wasm/abi.ts declares the memory and module structurally).
  it("type-checks a strict Node-only consumer (no DOM lib) importing every subpath", () => {
    const consumer = [
      `import { quantize, type Format, format } from "minifloat";`,
      ...Object.entries(SUBPATHS).map(([path, name], i) => `import { ${name} as export${i} } from "${path}";`),
      `const f: Format = format("float8_e4m3fn");`,
      `export const codes = quantize(new Float32Array([1, 2]), f);`,
      `export const subpaths = [${Object.keys(SUBPATHS)
        .map((_, i) => `export${i}`)
        .join(", ")}];`,
    ];
    const dir = join(app, "node-only");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "consumer.ts"), consumer.join("\n"));
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      lib: ["es2022"],
      types: ["node"],
      typeRoots: [join(root, "node_modules", "@types")],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    expect(run(join(root, "node_modules", ".bin", "tsc"), ["-p", dir], dir)).toBe("");
  });

  it("tree-shakes: a browser bundle importing decode leaves out MiniFloatArray and the Wasm kernels", async () => {
    const bundle = async (code: string): Promise<string> => {
      const result = await build({
        stdin: { contents: code, resolveDir: app },
        bundle: true,
        format: "esm",
        platform: "browser",
        write: false,
        logLevel: "silent",
      });
      return result.outputFiles[0]!.text;
    };
    // The bundles share chunks between entries, so the whole library is what importing all of it pulls in.
    const full = await bundle(`import * as all from "minifloat"; console.log(all);`);
    const small = await bundle(`import { decode } from "minifloat"; console.log(decode(1, "float8_e4m3fn"));`);
    expect(small).not.toMatch(/MiniFloatArray|kernelsBase64/);
    expect(small.length).toBeLessThan(full.length / 3);
    const views = await bundle(`import { BFloat16Array } from "minifloat"; console.log(BFloat16Array.from([1]).get(0));`);
    expect(views).toMatch(/MiniFloatArray/);
    expect(views).toMatch(/kernelsBase64/);
  });

  it.each(examples)("runs examples/%s against the installed package", (example) => {
    expect(run(process.execPath, [example], app)).toMatch(new RegExp(`^${example.replace(".mjs", "")}: ok`));
  });

  it("shows the Node and browser examples in docs/arrays.md verbatim", () => {
    const readme = readFileSync(join(root, "docs", "arrays.md"), "utf8");
    for (const file of [...examples.map((e) => join("examples", e)), join("examples", "browser", "index.html")]) {
      expect(readme.includes(readFileSync(join(root, file), "utf8").trim()), `docs/arrays.md shows ${file}`).toBe(true);
    }
  });
});
