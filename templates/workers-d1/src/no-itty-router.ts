// specroute loads itty-router only in an app that mounts itty-router routers, which this one never does;
// wrangler.jsonc points that import here, so the bundle builds without itty-router installed.
export {};
