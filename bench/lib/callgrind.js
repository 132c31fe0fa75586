// What the instruction counts share: valgrind's callgrind steered from outside and read back.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Fails the run unless valgrind is installed. */
export function requireValgrind() {
  if (spawnSync("valgrind", ["--version"]).status !== 0) throw new Error("needs valgrind (apt-get install valgrind)");
}

/** Runs `callgrind_control` on process `pid`, failing loudly. */
export function callgrindControl(pid, ...args) {
  const result = spawnSync("callgrind_control", [...args, String(pid)], { encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(" ")}: ${result.stderr || result.stdout}`);
}

/** The instructions the main thread executed in the newest dump of `pid` in `dir` (files `<pid>.out.<n>-01`). */
export function lastMainThreadCount(dir, pid) {
  const dumps = readdirSync(dir)
    .map((name) => /^(\d+)\.out\.(\d+)-01$/.exec(name))
    .filter((match) => match !== null && match[1] === String(pid))
    .sort((a, b) => Number(a[2]) - Number(b[2]));
  const text = readFileSync(join(dir, dumps.at(-1)[0]), "utf8");
  return Number(/^summary: (\d+)/m.exec(text)[1]);
}
