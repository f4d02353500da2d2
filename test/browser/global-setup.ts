// Unpacks the npm-installed Chromium once, before the test files run in parallel (concurrent first calls would
// unpack into the same path at the same time).
import { chromiumPath } from "./chromium.js";

export default async function setup(): Promise<void> {
  process.env.CHROMIUM_PATH = await chromiumPath();
}
