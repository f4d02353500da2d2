// The encode kernel's parameter block, the one source of its layout: scripts/build.mjs renders it into
// assembly/encode-layout.ts (the kernel) and src/wasm/encode-layout.ts (the host), and a test checks both are current.
//
// The block: 16-byte slots (a value splatted over four i32 lanes; "f32" slots hold float32 bits, "half" slots a 16-bit
// value in both halves of every lane, "narrow" slots a byte (K ≤ 8) or 16-bit value repeated in every byte or half of
// the lanes), grouped by the kernel variant that reads them; then scalar i32 words; then the tail scratch of the
// kernel. src/kernel/encode-constants.ts derives every value from the Format and the projection as plain numbers;
// src/wasm/encode.ts packs them.

/** Slots by variant: [name, type, what it holds]. */
export const SLOT_GROUPS = [
  {
    variant: "generic",
    about: "the generic kernel (every format, rounding and saturation; P3109 §4.7.3–4.7.6)",
    slots: [
      ["magOffset", "i32", "(B − 127)·2^(P−1): truncated magnitude code = (bits >> (24 − P)) + magOffset"],
      ["remainderMask", "i32", "2^(24−P) − 1: the fraction bits of a normal result"],
      ["normalMin", "i32", "float32 bits of MinNormal (clamped): lanes at or above it take the normal path"],
      ["scale1", "f32", "2^e1 and 2^e2 with e1 + e2 = −minQ: y = |x|·2^−minQ in two exact steps (also the fast directed path)"],
      ["scale2", "f32", ""],
      ["zeroMagnitude", "i32", "(minQ + P + B − 2)·2^(P−1): the magnitude code of a subnormal-path ⌊y⌋ = 0 (a zero result)"],
      ["flushBelow", "i32", "magnitude codes below this become 0 (flushed subnormals), else INT_MIN"],
      ["maxMagnitude", "i32", "magnitude code of MaxFinite"],
      ["tBase", "i32", "addends T of the round-away carry ν + T ≥ 2^32 (§4.7.4): constant, if the truncated code is odd / even, if x > 0 / x < 0"],
      ["tOdd", "i32", ""],
      ["tEven", "i32", ""],
      ["tPositive", "i32", ""],
      ["tNegative", "i32", ""],
      ["fractionMask", "i32", "fraction bits of ν a stochastic mode looks at (top N or N + 1), else all"],
      ["cHalf", "i32", "StochasticC: 2^(31−N) − 1 and 1, rounding ν to N bits ties-to-even first"],
      ["cBit", "i32", ""],
      ["randomMask", "i32", "seeded R: the top N of 32 random bits, left in place (= R << (32 − N))"],
      ["signBit", "i32", "sign bit of a negative nonzero value, 0 for unsigned formats"],
      ["negativeZero", "i32", "code of −0 (vendor formats with −0), else 0"],
      ["unsigned", "i32", "all ones for unsigned formats: any negative nonzero result is below MinFinite"],
      ["noZero", "i32", "all ones for formats without zero: a zero result is below MinFinite"],
      ["above", "i32", "ωSaturate outcome codes (§4.7.5): finite overflow, below MinFinite by sign, ±∞ inputs, NaN by sign"],
      ["belowPositive", "i32", ""],
      ["belowNegative", "i32", ""],
      ["infPositive", "i32", ""],
      ["infNegative", "i32", ""],
      ["nanPositive", "i32", ""],
      ["nanNegative", "i32", ""],
      ["keepPayload", "i32", "all ones where NaN payloads are kept (numpy float16): code = NaN + max(payload >> (24 − P), 1) + keepOffset"],
      ["keepOffset", "i32", ""],
      ["quirk", "i32", "all ones for ml_dtypes' float8_e8m0fnu cast: positive float32 subnormals give minPositive, or the next code above quirkThreshold"],
      ["quirkThreshold", "f32", ""],
      ["minPositive", "i32", ""],
      ["key0", "i32", "seed keys of the counter-based generator (generic and fast seeded paths)"],
      ["key1", "i32", ""],
    ],
  },
  {
    variant: "fast",
    about: "every fast variant: formats whose finite overflow has one code per sign (host-checked)",
    slots: [
      ["fastRebias", "i32", "(B − 127)·2^23: the float32 bits rebiased to the format's exponent"],
      ["fastHalf", "i32", "2^(23−P) − 1: half a unit of the code minus one (nearest-even)"],
      ["fastMagic", "f32", "2^(minQ+23): x + magic − magic rounds a subnormal result to its quantum (nearest-even)"],
      ["fastNormalBits", "i32", "float32 bits of max(MinNormal, 2^−126): lanes below it take the subnormal path"],
      ["fastLimit", "i32", "the clamp of the magnitude code (MaxFinite or the next)"],
      ["fastStep", "i32", "(23 − M)·2^23: |x|'s exponent bits plus this are 2^23 times its quantum (nearest-even, exponent-count form)"],
      ["fastMagicHigh", "half", "the high half of fastMagic's float32 bits"],
      ["fastUnit", "half", "2^M: codes per binade"],
      ["narrowLimit", "narrow", "fastLimit"],
      ["narrowSignBit", "narrow", "sign bit"],
      ["narrowZeroClear", "narrow", "sign bit where a zero result has no sign, else 0"],
      ["narrowUnsigned", "narrow", "all ones for unsigned formats"],
      ["narrowNaNPositive", "narrow", "NaN codes by sign"],
      ["narrowNaNNegative", "narrow", ""],
      ["narrowOne", "narrow", "1"],
      ["narrowKeepOffset", "narrow", "the payload offset of a kept NaN payload (numpy float16)"],
      ["narrowBelowNegative", "narrow", "the code of a negative nonzero result of an unsigned format"],
      ["narrowInfPositive", "narrow", "±∞ codes"],
      ["narrowInfNegative", "narrow", ""],
    ],
  },
  {
    variant: "stochastic",
    about: "the fast StochasticA/B/C variants (NS = N, or N + 1 for B; c0 = 23 for byte codes, 16 for wide ones)",
    slots: [
      ["stochasticMask", "i32", "float32 bits kept above R' (the low d = 24 − P − NS bits cleared when d > 0)"],
      ["stochasticScale", "f32", "2^e1, 2^e2 with e1 + e2 = NS − minQ: the subnormal-path scale in two exact steps"],
      ["stochasticScale2", "f32", ""],
      ["stochasticOneAt", "i32", "2^(31 − N) for B: the + 1 of R' = 2R + 1, just below R"],
      [
        "stochasticCRebias",
        "i32",
        "StochasticC's RNITE at bit d: fastRebias + 2^(d−1) − 1 and the kept bit 2^d (fastRebias and 2^31, a bit |x| never has, when d ≤ 0)",
      ],
      ["stochasticCBit", "i32", ""],
      ["stochasticClamp", "i32", "fastLimit << (24 − P): the float32 bits (rebiased) of the overflow code"],
      ["stochasticUp", "i32", "2^(c0 − 24 + P) and 2^(c0 − NS): normal and subnormal results moved to code bit c0"],
      ["stochasticSubnormalUp", "i32", ""],
      ["stochasticYCap", "f32", "2^(P − 1 + NS): ⌊|x|·2^(NS − minQ)⌋ of MinNormal, the cap of the subnormal path"],
    ],
  },
  {
    variant: "directed",
    about: "the fast TowardZero/Positive/Negative, TowardMaxMagnitude, ToOdd and NearestTiesToAway variant",
    slots: [
      ["directedTBase", "i32", "addends T in units of the float32 bits (normal results): constant, if the truncated code is odd, if x < 0, if x > 0"],
      ["directedTOdd", "i32", ""],
      ["directedTNegative", "i32", ""],
      ["directedTPositive", "i32", ""],
      ["directedGBase", "i32", "thresholds G on the bits of the fraction ν (subnormal results): round away iff bits(ν) > G, built like T"],
      ["directedGOdd", "i32", ""],
      ["directedGNegative", "i32", ""],
      ["directedGPositive", "i32", ""],
      ["directedLimitNegative", "i32", "the clamp of negative values (the saturation rules treat the two signs differently)"],
    ],
  },
  {
    variant: "noZero",
    about: "the fast variant of unsigned P = 1 formats without zero (E8M0: code 0 is MinPositive), every deterministic rounding",
    slots: [
      ["noZeroT", "i32", "addends on the bits of a positive normal result: rebias + T, and where bit 24 − P is set (code parity)"],
      ["noZeroTOdd", "i32", ""],
      ["noZeroOneBits", "i32", "lanes below fastNormalBits have code 1 from these float32 bits on (else 0)"],
      ["noZeroBelowBits", "i32", "lanes whose float32 bits (as i32) lie below this are below MinFinite: negative, ±0, or rounding to zero"],
      ["noZeroBelow", "i32", "their code (§4.7.5 rules 5, 11, 20, 22; ml_dtypes' NaN)"],
    ],
  },
];

/** Scalar i32 words after the slots: [name, what it holds]. */
export const SCALARS = [
  ["shift", "24 − P"],
  ["fractionShift", "32 − (24 − P): aligns a normal result's fraction bits to the top of ν"],
  ["cShift", "32 − N: StochasticC's kept-bit position"],
  ["randomShift", "32 − N: R << randomShift for caller-supplied R"],
  ["random", "the random source (RandomSource)"],
  ["fields", "seeded R: log2 of the fields per stream word (Fields)"],
  ["variant", "the kernel variant (Variant flags): generic or fast, and what the fast one specialises"],
  ["plainSign", "1 where a code is its magnitude with the sign bit ORed in (signed formats with a −0 of their own)"],
];
/** Bytes of the scalar area (16-byte aligned). */
export const SCALAR_BYTES = 64;
/** Bytes of the tail scratch: the last < 16 elements run through one zero-padded block (64 of float32, 64 of R, 32 of codes). */
export const TAIL_BYTES = 160;

/** Named numbers both sides use: the random source kinds and the variant flags. */
export const ENUMS = {
  RandomSource: {
    about: "How the kernel gets R: none (deterministic), the seeded generator, or a caller array of u8/u16/u32.",
    values: { none: 0, seed: 1, u8: 2, u16: 3, u32: 4 },
  },
  Fields: {
    about: "Seeded R: log2 of the fields per stream word (the fast path takes bytes for N ≤ 8, halves for N ≤ 16).",
    values: { words: 0, halves: 1, bytes: 2 },
  },
  Variant: {
    about: "Kernel variant flags: the fast path and what it specialises.",
    values: { fast: 1, wide: 2, keepPayload: 4, directed: 8, stochastic: 16, seeded: 32, stageC: 64, noZero: 128, prefix: 256, carry: 512 },
  },
};

const HEADER = "// Generated by scripts/build.mjs from scripts/encode-layout.mjs — do not edit.\n";

const slots = () => SLOT_GROUPS.flatMap((g) => g.slots);

/** Comment lines of a group and its slots' indices. */
function groupLines(render) {
  const lines = [];
  let index = 0;
  for (const g of SLOT_GROUPS) {
    lines.push(`  // ${g.variant}: ${g.about}`);
    for (const [name, type, about] of g.slots) lines.push(render(name, index++, type, about));
  }
  return lines;
}

const comment = (about) => (about ? ` // ${about}` : "");

/** The AssemblyScript module: enums of slot indices, scalar indices and the named numbers, and the block geometry. */
export function renderAssembly() {
  const enums = Object.entries(ENUMS).map(
    ([name, e]) =>
      `/** ${e.about} */\nexport const enum ${name} { ${Object.entries(e.values)
        .map(([k, v]) => `${k} = ${v}`)
        .join(", ")} }`,
  );
  return `${HEADER}// The encode kernel's parameter block: 16-byte slots, scalar i32 words, the tail scratch.

/** Slot indices (the slot's address is block + 16·index). */
export const enum Slot {
${groupLines((name, index, type, about) => `  ${name} = ${index}, // ${type}${about ? `: ${about}` : ""}`).join("\n")}
}

/** Scalar word indices (the word's address is block + SCALARS_AT + 4·index). */
export const enum Scalar {
${SCALARS.map(([name, about], i) => `  ${name} = ${i},${comment(about)}`).join("\n")}
}

${enums.join("\n\n")}

export const SLOTS: i32 = ${slots().length};
export const SCALARS_AT: usize = ${slots().length * 16};
export const TAIL_AT: usize = ${slots().length * 16 + SCALAR_BYTES};
export const BLOCK_BYTES: usize = ${slots().length * 16 + SCALAR_BYTES + TAIL_BYTES};
`;
}

/** The TypeScript module: slot and scalar indices, slot types and the named numbers as const objects. */
export function renderTypeScript() {
  const object = (name, about, entries) => [`/** ${about} */`, `export const ${name} = {`, ...entries, "} as const;"].join("\n");
  const enums = Object.entries(ENUMS).map(
    ([name, e]) =>
      `/** ${e.about} */\nexport const ${name} = { ${Object.entries(e.values)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")} } as const;`,
  );
  return `${HEADER}// The encode kernel's parameter block: 16-byte slots, scalar i32 words, the tail scratch.

${object(
  "SLOT",
  "Slot indices (the slot's address is block + 16·index).",
  groupLines((name, index, _type, about) => `  ${name}: ${index},${comment(about)}`),
)}
export type SlotName = keyof typeof SLOT;

/** How a slot's value is stored: an i32, float32 bits, a 16-bit value in both halves, or a code repeated in every byte (K ≤ 8) or half of a lane. */
export const SLOT_TYPE: Readonly<Record<SlotName, "i32" | "f32" | "half" | "narrow">> = {
${slots()
  .map(([name, type]) => `  ${name}: "${type}",`)
  .join("\n")}
};

${object(
  "SCALAR",
  "Scalar word indices (after the slots).",
  SCALARS.map(([name, about], i) => `  ${name}: ${i},${comment(about)}`),
)}
export type ScalarName = keyof typeof SCALAR;

${enums.join("\n\n")}

/** i32 words the host writes at the start of a block (slots, then scalar words). */
export const BLOCK_WORDS = ${slots().length * 4 + SCALAR_BYTES / 4};
`;
}
