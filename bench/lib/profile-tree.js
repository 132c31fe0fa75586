// `node lib/profile-tree.js <file.cpuprofile> <function name> [depth]`: the call tree below every
// frame of that function, merged, with inclusive time — to see where a hot function spends it.
import { readFileSync } from "node:fs";

const [file, name, maxDepth = "4"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const inclusive = (node) =>
  (self.get(node.id) ?? 0) + (node.children ?? []).reduce((t, c) => t + inclusive(nodes.get(c)), 0);
const label = ({ callFrame: f }) =>
  `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(dist|bench)\//, "$1/")}:${f.lineNumber + 1}`;

// Merge every subtree rooted at a frame named `name` into one tree keyed by label.
const merged = { time: 0, children: new Map() };
const add = (node, into, depth) => {
  into.time += inclusive(node);
  if (depth >= Number(maxDepth)) return;
  for (const id of node.children ?? []) {
    const child = nodes.get(id);
    const key = label(child);
    if (!into.children.has(key)) into.children.set(key, { time: 0, children: new Map() });
    add(child, into.children.get(key), depth + 1);
  }
};
const visit = (node, inside) => {
  const match = node.callFrame.functionName === name;
  if (match && !inside) add(node, merged, 0);
  for (const id of node.children ?? []) visit(nodes.get(id), inside || match);
};
visit(nodes.get(profile.nodes[0].id), false);
const print = (tree, indent) => {
  for (const [key, child] of [...tree.children].sort((a, b) => b[1].time - a[1].time)) {
    if (child.time < merged.time * 0.01) continue;
    console.log(`${(child.time / 1000).toFixed(1).padStart(8)} ms ${"  ".repeat(indent)}${key}`);
    print(child, indent + 1);
  }
};
console.log(`${(merged.time / 1000).toFixed(1).padStart(8)} ms ${name}`);
print(merged, 1);
