// `minifloat table`: every code of a format with its bits and value, in the style of the P3109 slides' code to
// value mappings (as the P3109 value tables list them): hex code, bits, sign.exponent.trailing, significand × 2^exponent, value.
import { decodeExact } from "../exact/decode.js";
import { type Exact, bitLength, toNumberExact } from "../exact/value.js";
import { FormatError } from "../errors.js";
import type { Format } from "../format/model.js";
import { format } from "../format/registry.js";
import { UsageError, integerOption, parseCommand } from "./args.js";
import type { Command } from "./io.js";

const HELP = `Usage: minifloat table <format> [--bias <n>]

Prints all 2^K codes of a format, one per line:
  code (hex)  bits  sign.exponent.trailing  significand*2^exponent  value  [* = subnormal]
Values are exact: decimal when a float64 holds them, otherwise a C99 hex float (0x1.8p+20000).

Options:
  --bias <n>   exponent bias of the Tesla formats cfloat8_1_4_3, cfloat8_1_5_2, cfloat16_shp (0 to 63)
`;

export const tableCommand: Command = {
  name: "table",
  summary: "print the code -> value table of a format",
  help: HELP,
  async run(args, io) {
    const p = parseCommand("table", args, { bias: { type: "string" } }, ["format"]);
    const bias = integerOption(p, "bias", 0, 63);
    let f: Format;
    try {
      f = format(p.positionals[0]!, bias === undefined ? undefined : { bias });
    } catch (e) {
      if (e instanceof FormatError) throw new UsageError(e.argument === "params.bias" ? "--bias" : "<format>", e.message.slice(e.argument.length + 2));
      throw e;
    }
    if (f.K > 16) throw new UsageError("<format>", `${f.name} has 2^${f.K} codes; allowed: formats of up to 16 bits`);
    io.stdout(`${f.name}: K=${f.K} P=${f.P} bias=${f.bias} ${f.signedness} ${f.domain}, ${f.codeCount} codes\n`);
    const lines: string[] = [];
    for (let code = 0; code < f.codeCount; code++) {
      lines.push(row(f, code));
      if (lines.length === 4096) io.stdout(`${lines.splice(0).join("\n")}\n`);
    }
    if (lines.length > 0) io.stdout(`${lines.join("\n")}\n`);
    return 0;
  },
};

/** One line of the table. */
function row(f: Format, code: number): string {
  const bits = code.toString(2).padStart(f.K, "0");
  const signBits = f.signed ? 1 : 0;
  const fields = [bits.slice(0, signBits), bits.slice(signBits, signBits + f.exponentBits), bits.slice(signBits + f.exponentBits)]
    .filter((s) => s.length > 0)
    .join(".");
  const x = decodeExact(code, f);
  const hex = `0x${code.toString(16).padStart(Math.ceil(f.K / 4), "0")}`;
  const special = x.kind !== "finite" || f.isNaNCode(code);
  return [hex, bits, fields.padEnd(f.K + 2), (special ? "" : form(f, code)).padEnd(f.K + 12), valueText(x), subnormal(f, code) ? "*" : ""].join("  ").trimEnd();
}

/** ±h.T*2^e as the encoding spells it: hidden bit h, trailing bits T, unbiased exponent e. */
function form(f: Format, code: number): string {
  const mag = f.magnitudeOf(code);
  const T = mag % 2 ** f.trailingBits;
  const E = (mag - T) / 2 ** f.trailingBits;
  const hidden = E === 0 && f.zero ? 0 : 1;
  const exponent = Math.max(E, f.zero ? 1 : 0) - f.bias;
  const trailing = f.trailingBits > 0 ? `.${T.toString(2).padStart(f.trailingBits, "0")}` : "";
  return `${f.isNegativeCode(code) ? "-" : "+"}${hidden}${trailing}*2^${exponent}`;
}

function subnormal(f: Format, code: number): boolean {
  const mag = f.magnitudeOf(code);
  return f.zero && f.subnormals === "gradual" && mag > 0 && mag < 2 ** f.trailingBits && !f.isNaNCode(code);
}

/** Decimal (shortest round-trip) when a float64 holds the value exactly, else a normalised hex float. */
function valueText(x: Exact): string {
  const v = toNumberExact(x);
  if (v !== undefined) return Object.is(v, -0) ? "-0" : Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v);
  return hexFloat(x);
}

/** C99 hex float 0x1.<hex>p<exp> of a nonzero finite exact value. */
function hexFloat(x: Exact): string {
  if (x.kind !== "finite") throw new RangeError(`hexFloat: ${x.kind} has no hex float`);
  const b = bitLength(x.significand);
  const frac = x.significand - (1n << BigInt(b - 1));
  const pad = (4 - ((b - 1) % 4)) % 4;
  const digits =
    b > 1
      ? (frac << BigInt(pad))
          .toString(16)
          .padStart((b - 1 + pad) / 4, "0")
          .replace(/0+$/, "")
      : "";
  const e = x.exponent + b - 1;
  return `${x.sign < 0 ? "-" : ""}0x1${digits ? `.${digits}` : ""}p${e < 0 ? "" : "+"}${e}`;
}
