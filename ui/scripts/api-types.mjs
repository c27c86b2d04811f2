// Generates src/generated/api.ts from src/generated/openapi.json, the checked-in copy of the
// Host's API document (a Rust test in crates/wisp-server keeps the copy equal to what the Host
// serves). With --check it writes nothing and fails when api.ts is not what the generator makes
// of the copy, so a hand edit or a forgotten regeneration cannot pass the tests.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ui = join(dirname(fileURLToPath(import.meta.url)), "..");
const copy = join(ui, "src/generated/openapi.json");
const target = join(ui, "src/generated/api.ts");
const cli = join(ui, "node_modules/.bin/openapi-typescript");

const dir = mkdtempSync(join(tmpdir(), "wisp-api-types-"));
try {
  const out = join(dir, "api.ts");
  execFileSync(cli, [copy, "--output", out, "--default-non-nullable=false"], { stdio: ["ignore", "ignore", "inherit"] });
  const generated = readFileSync(out, "utf8");
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(target, "utf8");
    } catch {
      // A missing file is reported as out of date below.
    }
    if (current !== generated) {
      console.error("src/generated/api.ts is not what openapi-typescript makes of src/generated/openapi.json: run `npm --prefix ui run gen:api` and commit the result.");
      process.exit(1);
    }
  } else {
    writeFileSync(target, generated);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
