// The layers of src/ and the one direction imports run between them; `npm test` runs this check.
// docs/architecture.md draws the same layers. From the bottom up:
//   errors      exception classes, error codes, rendering an error as a Response
//   schema      the schema seam: the one place that reads a schema library's internals (zod/ behind seam.ts)
//   core        the endpoint contract's types (core/*.ts), under reading a request
//               (core/request), under authentication (core/security), under the endpoint and its
//               compiled route (core/route)
//   openapi     the document builder;   docs-ui   the docs pages' HTML;   client   typed client (types)
//   live        live collections: change logs, brokers, the listeners' fan-out (storage-agnostic)
//   endpoints   the auto CRUD endpoints over a storage-agnostic base
//   sql         SQL dialects, drivers and the SQL-backed endpoints
//   drizzle     the auto endpoints over Drizzle tables (specroute/drizzle), the only part that loads drizzle-orm
//   adapters    Hono and itty-router: registration, mounting, serving, the served document
//   node        Node-only helpers (specroute/node);   chanfana   chanfana-only names and shims
//   mcp         the routers' operations as MCP tools (specroute/mcp), the only part that loads the MCP SDK
//   otel        tracing with OpenTelemetry (specroute/otel), over core's tracing interface; the only part that loads @opentelemetry/api
//   cli         the command line;   index.ts   the package's named exports

/** The files of the named top-level parts of src/ (folders, and "index" for src/index.ts). */
const parts = (...names) => `^src/(${names.map((name) => (name === "index" ? "index\\.ts$" : `${name}/`)).join("|")})`;

/** A rule forbidding `from` to import any of `to`. */
const layer = (name, from, to, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: from },
  to: { path: to },
});

const ABOVE_CORE = parts(
  "live",
  "openapi",
  "docs-ui",
  "client",
  "endpoints",
  "sql",
  "drizzle",
  "adapters",
  "node",
  "chanfana",
  "mcp",
  "otel",
  "cli",
  "index",
);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "Files never import each other in a circle, types included: a circle hides which one is the lower layer.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    layer("errors-is-the-bottom", "^src/errors/", "^src/(?!errors/)", "errors imports nothing else of specroute."),
    layer(
      "schema-seam-above-errors",
      "^src/schema/",
      "^src/(?!schema/|errors/)",
      "The schema seam reads schemas for everyone above it and imports nothing of theirs.",
    ),
    {
      name: "client-reads-the-seam-as-types",
      comment: "The typed client may use the seam's types (a schema's input and output), never its code.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/schema/", dependencyTypesNot: ["type-only"] },
    },
    layer(
      "core-below-the-rest",
      "^src/core/",
      ABOVE_CORE,
      "core never imports a router, the document, a database or a page.",
    ),
    layer(
      "core-contract-is-the-bottom-of-core",
      "^src/core/[^/]+\\.ts$",
      "^src/core/(request|security|route)/",
      "The endpoint contract's types (schema-types) sit under the rest of core.",
    ),
    layer(
      "reading-a-request-is-below-routes",
      "^src/core/(request|security)/",
      "^src/core/route/",
      "Reading a request and authenticating it know nothing of endpoints or their compiled routes.",
    ),
    layer(
      "adapters-read-requests-through-incoming",
      "^src/adapters/",
      "^src/core/request/(?!incoming\\.ts$)",
      "An adapter implements IncomingRequest and is handed the request that reads the body again: it never reaches into how the core reads or replays a body.",
    ),
    layer(
      "security-is-above-reading",
      "^src/core/request/",
      "^src/core/security/",
      "Authentication may read a request (cookies); reading a request never authenticates.",
    ),
    layer(
      "openapi-above-core-only",
      "^src/openapi/",
      parts("docs-ui", "client", "endpoints", "sql", "drizzle", "adapters", "node", "chanfana", "mcp", "cli", "index"),
      "The document builder is a pure function over schemas: no router, no database.",
    ),
    layer("docs-ui-stands-alone", "^src/docs-ui/", "^src/(?!docs-ui/)", "The docs pages are HTML builders only."),
    layer(
      "client-is-types-over-errors",
      "^src/client/",
      parts(
        "core",
        "openapi",
        "docs-ui",
        "endpoints",
        "sql",
        "drizzle",
        "adapters",
        "node",
        "chanfana",
        "mcp",
        "cli",
        "index",
      ),
      "The typed client's runtime must not pull server code into a browser bundle.",
    ),
    layer(
      "live-below-endpoints",
      "^src/live/",
      parts(
        "openapi",
        "docs-ui",
        "client",
        "endpoints",
        "sql",
        "drizzle",
        "adapters",
        "node",
        "chanfana",
        "mcp",
        "cli",
        "index",
      ),
      "A live collection's log, brokers and fan-out know no endpoint, storage engine or router.",
    ),
    layer(
      "endpoints-below-storage-and-routers",
      "^src/endpoints/",
      parts("docs-ui", "client", "sql", "drizzle", "adapters", "node", "chanfana", "mcp", "cli", "index"),
      "Auto endpoints are storage-agnostic and router-agnostic.",
    ),
    layer(
      "sql-below-routers",
      "^src/sql/",
      parts("docs-ui", "client", "drizzle", "adapters", "node", "chanfana", "mcp", "cli", "index"),
      "SQL endpoints work under any router.",
    ),
    layer(
      "drizzle-beside-sql",
      "^src/drizzle/",
      parts("docs-ui", "client", "adapters", "node", "chanfana", "mcp", "cli", "index"),
      "The Drizzle endpoints share the SQL layer's plans and errors and work under any router.",
    ),
    layer(
      "nothing-imports-drizzle",
      "^src/(?!drizzle/)",
      "^src/drizzle/",
      "Only specroute/drizzle loads drizzle-orm and drizzle-zod: an app that does not use them bundles none of either.",
    ),
    layer(
      "adapters-never-import-endpoints",
      "^src/adapters/",
      parts("endpoints", "sql", "drizzle", "node", "chanfana", "mcp", "cli", "index"),
      "Routers register any endpoint; they know no endpoint kind or database.",
    ),
    layer(
      "node-above-adapters",
      "^src/node/",
      parts("endpoints", "sql", "drizzle", "chanfana", "mcp", "cli", "index"),
      "specroute/node holds Node helpers beside the routers.",
    ),
    layer(
      "mcp-above-adapters",
      "^src/mcp/",
      parts("endpoints", "sql", "drizzle", "node", "chanfana", "cli", "index"),
      "specroute/mcp serves any router's document as tools and calls routes through the router: no endpoint kind, no database.",
    ),
    layer(
      "nothing-imports-mcp",
      "^src/(?!mcp/)",
      "^src/mcp/",
      "Only specroute/mcp loads the MCP SDK: an app that serves no MCP bundles none of it.",
    ),
    layer(
      "otel-above-core-only",
      "^src/otel/",
      parts(
        "live",
        "openapi",
        "docs-ui",
        "client",
        "endpoints",
        "sql",
        "drizzle",
        "adapters",
        "node",
        "chanfana",
        "mcp",
        "cli",
        "index",
      ),
      "specroute/otel implements core's tracing interface with the OpenTelemetry API; it knows no router or database.",
    ),
    layer(
      "nothing-imports-otel",
      "^src/(?!otel/)",
      "^src/otel/",
      "Only specroute/otel loads @opentelemetry/api: an app that traces nothing bundles none of it.",
    ),
    layer(
      "nothing-imports-the-cli",
      "^src/(?!cli/)",
      "^src/cli/",
      "The CLI is a program on top; nothing else needs it.",
    ),
    layer(
      "nothing-imports-the-entry",
      "^src/(?!index\\.ts)",
      "^src/index\\.ts$",
      "index.ts only lists exports; importing it from inside makes every file depend on everything.",
    ),
    {
      name: "node-builtins-only-in-node-and-cli",
      comment: "What a Worker bundles never imports a node: module (specroute/node and the CLI may).",
      severity: "error",
      from: { path: "^src/(?!node/|cli/)" },
      to: { dependencyTypes: ["core"] },
    },
  ],
  options: {
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
