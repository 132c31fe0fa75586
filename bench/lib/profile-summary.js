// `node lib/profile-summary.js <file.cpuprofile> [top]`: self and inclusive time per function,
// for reading a `--cpu-prof` profile without DevTools.
import { readFileSync } from "node:fs";

const [file, top = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

const label = ({ callFrame: f }) =>
  `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(dist|bench)\//, "$1/")}:${f.lineNumber + 1}`;
const selfBy = new Map();
const inclusiveBy = new Map();
for (const [id, time] of self) {
  selfBy.set(label(nodes.get(id)), (selfBy.get(label(nodes.get(id))) ?? 0) + time);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const name = label(nodes.get(at));
    if (seen.has(name)) continue;
    seen.add(name);
    inclusiveBy.set(name, (inclusiveBy.get(name) ?? 0) + time);
  }
}
const print = (title, map) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${name}`);
  }
};
print("self time", selfBy);
print("inclusive time", inclusiveBy);
