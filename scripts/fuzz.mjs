// Long fuzz run: the fuzz test files (test/fuzz-*.test.ts) with many more runs and a fresh seed, printed first so
// a failure can be replayed. Usage: npm run fuzz -- [--runs 50] [--seed N] (runs multiply each property's count).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "50" }, seed: { type: "string" } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!(runs > 0) || !Number.isSafeInteger(seed)) {
  console.error(`fuzz: --runs must be a positive number and --seed an integer (got ${values.runs}, ${values.seed})`);
  process.exit(2);
}
console.log(`fuzz: runs ×${runs}, seed ${seed} (replay: npm run fuzz -- --runs ${runs} --seed ${seed})`);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const result = spawnSync(process.execPath, [vitest, "run", "test/fuzz-"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_SEED: String(seed) },
});
process.exit(result.status ?? 1);
