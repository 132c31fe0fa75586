#!/usr/bin/env node
// `npm run mutation [-- options]`: Stryker over the files that guard callers and data (issue #42), each
// group of files (scripts/mutation/groups.json) against its own tests, then one table of every file's score.
//   --group <name>          one group only
//   --mutate <file>[,...]   those files only (each group holding one runs), e.g. --mutate src/sql/plan.ts
//   anything else           passed to `stryker run` (--incremental, --concurrency 2, --logLevel debug, ...)
// Stryker is installed from scripts/mutation/package-lock.json into .artifacts/stryker (git-ignored), not
// through the project's lockfile, so `npm ci` and CI never download it; it runs the project's own vitest,
// which its runner finds by walking up from .artifacts/ to the project's node_modules.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pinned = join(root, "scripts", "mutation");
const cache = join(root, ".artifacts", "stryker");
const reports = join(root, ".artifacts", "mutation");
const { groups } = JSON.parse(readFileSync(join(pinned, "groups.json"), "utf8"));

const { only, mutate, passed } = parseArgs(process.argv.slice(2));
const chosen = groups.flatMap((group) => {
  if (only !== undefined && group.name !== only) return [];
  if (mutate === undefined) return [{ group, files: group.mutate }];
  const files = mutate.filter((file) => group.mutate.some((glob) => matches(glob, file.split(":")[0])));
  return files.length > 0 ? [{ group, files }] : [];
});
if (chosen.length === 0) {
  console.error(`mutation: no group holds ${mutate?.join(", ") ?? only}: see scripts/mutation/groups.json`);
  process.exit(2);
}

install();
const stryker = join(cache, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
const started = Date.now();
let failed = false;
for (const { group, files } of chosen) {
  console.log(`\nmutation: group "${group.name}": ${files.join(", ")}`);
  if (group.servers) console.log(`mutation: ${group.servers}`);
  rmSync(join(reports, `${group.name}.json`), { force: true });
  const run = spawnSync(
    process.execPath,
    [stryker, "run", join(root, "stryker.config.mjs"), "--mutate", files.join(","), ...passed],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        SPECROUTE_MUTATION_GROUP: group.name,
        SPECROUTE_MUTATION_TESTS: JSON.stringify(group.tests),
      },
    },
  );
  if (run.status !== 0) failed = true;
}
summarise(chosen.map(({ group }) => group.name));
console.log(`mutation: ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(failed ? 1 : 0);

function parseArgs(args) {
  let only;
  let mutate;
  const passed = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--group") only = args[++i];
    else if (args[i] === "--mutate" || args[i] === "-m") mutate = args[++i].split(",");
    else passed.push(args[i]);
  }
  return { only, mutate, passed };
}

/** Whether `file` matches `glob`, whose only wildcard is `*` within one folder. */
function matches(glob, file) {
  const pattern = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
  return new RegExp(`^${pattern}$`).test(file);
}

/** Installs the pinned Stryker into .artifacts/stryker when it is missing or the pins changed. */
function install() {
  const stamp = join(cache, "installed.sha256");
  const wanted = createHash("sha256")
    .update(readFileSync(join(pinned, "package.json")))
    .update(readFileSync(join(pinned, "package-lock.json")))
    .digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return;
  console.log("mutation: installing Stryker into .artifacts/stryker");
  mkdirSync(cache, { recursive: true });
  for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(pinned, file), join(cache, file));
  // vitest is a peer of the runner: leaving peers out keeps the project's own vitest the one that runs.
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--legacy-peer-deps", "--no-audit", "--no-fund"], {
    cwd: cache,
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stamp, wanted);
}

/** One table of every file the groups' JSON reports hold: score = (killed + timed out) / every mutant not disabled. */
function summarise(names) {
  const rows = [];
  for (const name of names) {
    const path = join(reports, `${name}.json`);
    if (!existsSync(path)) continue;
    const { files } = JSON.parse(readFileSync(path, "utf8"));
    for (const [file, { mutants }] of Object.entries(files)) {
      const count = (status) => mutants.filter((mutant) => mutant.status === status).length;
      const row = {
        file,
        killed: count("Killed"),
        timeout: count("Timeout"),
        survived: count("Survived"),
        noCoverage: count("NoCoverage"),
        errors: count("RuntimeError") + count("CompileError"),
        disabled: count("Ignored"),
      };
      const counted = row.killed + row.timeout + row.survived + row.noCoverage;
      row.score = counted === 0 ? 100 : (100 * (row.killed + row.timeout)) / counted;
      rows.push(row);
    }
  }
  if (rows.length === 0) return;
  console.log("\n| file | score | killed | timeout | survived | no coverage | errors | disabled |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows.sort((a, b) => a.file.localeCompare(b.file))) {
    const mark = r.score < 90 ? " (under 90)" : "";
    console.log(
      `| ${r.file} | ${r.score.toFixed(1)} %${mark} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.errors} | ${r.disabled} |`,
    );
  }
}
