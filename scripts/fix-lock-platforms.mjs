// Restores package-lock.json entries for other platforms' optional binaries (biome, rollup, ...).
// The registry mirror here serves only this platform's binaries, so `npm install` leaves the others
// out of the lock, and `npm ci` then refuses the lock as out of sync. Run after `npm install`:
//   node scripts/fix-lock-platforms.mjs
import { readFileSync, writeFileSync } from "node:fs";

const OSES = ["android", "darwin", "linux", "win32", "freebsd", "openbsd", "openharmony", "sunos", "aix", "netbsd"];
const CPUS = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "mips64el", "wasm32"];

/** os/cpu/libc of a platform package, read from its name (e.g. `@rollup/rollup-linux-arm64-musl`). */
function platformOf(name) {
  const base = name.split("/").pop();
  const os = OSES.find((candidate) => base.split("-").includes(candidate));
  if (!os) return null;
  const rest = base.slice(base.indexOf(os) + os.length).split("-");
  const cpu = CPUS.find((candidate) => rest.includes(candidate));
  if (!cpu) return null;
  const entry = { os: [os], cpu: [cpu] };
  if (os === "linux") entry.libc = [base.includes("musl") ? "musl" : "glibc"];
  return entry;
}

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
let added = 0;
for (const [key, meta] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const path = `node_modules/${name}`;
    if (lock.packages[path] || lock.packages[`${key}/${path}`]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    lock.packages[path] = { version, dev: meta.dev, optional: true, ...platform };
    added++;
  }
}
const [[rootKey, rootMeta], ...rest] = Object.entries(lock.packages);
lock.packages = Object.fromEntries([[rootKey, rootMeta], ...rest.sort(([a], [b]) => a.localeCompare(b))]);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries restored`);
