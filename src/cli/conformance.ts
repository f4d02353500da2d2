// `minifloat conformance`: the P3109 §4.5 mandatory specializations checked against this build, and the
// Exemplars-scheme declaration files (Configurations, Profiles, Constraints, Kappas) written on request.
import { join } from "node:path";
import { conformanceFiles, isSupported, mandatorySpecializations, specializationOf } from "../ops/conformance.js";
import { makeDirectory, writeFileAtomic } from "../io/atomic.js";
import { UsageError, parseCommand, stringOption } from "./args.js";
import type { Command } from "./io.js";

const HELP = `Usage: minifloat conformance [--declarations <dir> [--force]] [--provider <name>] [--email <addr>]
       minifloat conformance --supports "<signature>"

Checks that every specialization IEEE P3109 §4.5 makes mandatory (Convert, Recip, arithmetic, FMA/FAA,
extrema, comparisons, predicates, format queries and Scaled* over F4 = {Binary4p2sf}, F8 = {Binary8p4se,
Binary8p3se} and the external formats binary32, binary16, bfloat16) is supported; exit code 0 when all are.

Options:
  --declarations <dir>   also write Configurations.yaml, Profiles.yaml, Constraints.yaml and Kappas.yaml
                         (κ measured exhaustively now) into <dir>, created if missing
  --force                replace existing declaration files
  --provider <name>      provider named in the files' Metadata blocks
  --email <addr>         contact e-mail in the Metadata blocks
  --timestamp <iso>      timestamp in the Metadata blocks (default: now)
  --supports <sig>       only answer whether one specialization is supported, e.g.
                         "Add<Binary8p3se, Binary8p3se, binary32, (NearestTiesToEven, SatNone)>"
`;

export const conformanceCommand: Command = {
  name: "conformance",
  summary: "check the P3109 mandatory specializations and write the declaration files",
  help: HELP,
  async run(args, io) {
    const p = parseCommand(
      "conformance",
      args,
      {
        declarations: { type: "string" },
        force: { type: "boolean" },
        provider: { type: "string" },
        email: { type: "string" },
        timestamp: { type: "string" },
        supports: { type: "string" },
      },
      [],
    );
    const signature = stringOption(p, "supports");
    if (signature !== undefined) {
      // A signature that does not parse is a usage error; one that parses may name an unsupported specialization.
      if (!/^\s*[A-Za-z0-9]+\s*<.*>\s*$/s.test(signature)) {
        throw new UsageError(
          "--supports",
          `got ${JSON.stringify(signature)}; allowed: a signature Op<formats…[, (rounding, saturation)]>, e.g. "Add<Binary8p3se, Binary8p3se, binary32, (NearestTiesToEven, SatNone)>"`,
        );
      }
      try {
        specializationOf(signature);
      } catch (e) {
        io.stdout(`not supported: ${signature} (${(e as Error).message})\n`);
        return 1;
      }
      io.stdout(`supported: ${signature}\n`);
      return 0;
    }
    const mandatory = mandatorySpecializations();
    const missing = mandatory.filter((m) => !isSupported(m.signature));
    io.stdout(`P3109 §4.5 mandatory specializations: ${mandatory.length - missing.length} of ${mandatory.length} supported\n`);
    for (const m of missing.slice(0, 20)) io.stdout(`  missing: ${m.signature}\n`);
    if (missing.length > 20) io.stdout(`  … and ${missing.length - 20} more\n`);
    const dir = stringOption(p, "declarations");
    if (dir !== undefined) {
      const provider = stringOption(p, "provider");
      const email = stringOption(p, "email");
      const timestamp = stringOption(p, "timestamp");
      const files = conformanceFiles({
        ...(provider !== undefined && { provider }),
        ...(email !== undefined && { email }),
        ...(timestamp !== undefined && { timestamp }),
      });
      await makeDirectory(dir);
      for (const [name, text] of Object.entries(files)) {
        await writeFileAtomic(join(dir, name), text, p.values.force === true);
        io.stdout(`wrote ${join(dir, name)}\n`);
      }
    }
    return missing.length === 0 ? 0 : 1;
  },
};
