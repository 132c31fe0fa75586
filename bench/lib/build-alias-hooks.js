// The module hooks lib/build-alias.js registers (they run on Node's loader thread): `specroute` resolves to
// `<dist>/index.js`, `specroute/<entry>` to `<dist>/<entry>.js`, as the package's exports map them.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

let dist;

export function initialize(data) {
  dist = data.dist;
}

export function resolve(specifier, context, nextResolve) {
  if (specifier !== "specroute" && !specifier.startsWith("specroute/")) return nextResolve(specifier, context);
  const entry = specifier === "specroute" ? "index" : specifier.slice("specroute/".length);
  return { url: pathToFileURL(join(dist, `${entry}.js`)).href, shortCircuit: true };
}
