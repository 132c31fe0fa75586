// Preloaded with `node --import ./lib/build-alias.js` and SPECROUTE_DIST=/abs/checkout/dist (lib/builds.js
// does both): the process's `specroute` and `specroute/<entry>` imports load that build's dist/ instead of
// the repository's, as lib/workerd.js's esbuild alias does for a bundle. The apps stay as they are.
import { register } from "node:module";

register("./build-alias-hooks.js", import.meta.url, { data: { dist: process.env.SPECROUTE_DIST } });
