import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { OpenAPIDocument, OpenAPIVersion } from "../openapi/types";
import { CliError, oneLine } from "./errors";
import { hideTags } from "./hide-tags";
import { initCommand, TEMPLATES } from "./init";
import { loadRouter } from "./load-router";
import { migrateCommand } from "./migrate";
import { DOCUMENT_FORMATS, type DocumentFormat, formatForFile, renderDocument, writeDocument } from "./write-document";

/** Where the CLI writes; `process` unless a test passes its own. */
interface CliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Directory module and output paths are relative to. Default `process.cwd()`. */
  cwd?: string;
}

/** `specroute openapi` arguments once parsed and checked. */
interface OpenapiArgs {
  module: string;
  exportName?: string;
  /** File to write; `undefined` (or `-` on the command line) for stdout. */
  output?: string;
  format?: DocumentFormat;
  openapi?: OpenAPIVersion;
  hideTags: string[];
  /** Bindings the document is built for (`--env KEY=VALUE`), as a deployment with them would see it. */
  env: Record<string, string>;
}

const USAGE_LINE = "specroute openapi <module> [options]";

/** Every command, with the line `specroute --help` gives it. */
const COMMANDS: ReadonlyArray<{ name: string; usage: string; summary: string }> = [
  {
    name: "init",
    usage: "init <dir>",
    summary: `write a new project from a template (--template ${TEMPLATES.map((template) => template.name).join(", ")})`,
  },
  {
    name: "openapi",
    usage: "openapi <module>",
    summary: "write the OpenAPI document (JSON or YAML) of an app module, without serving it",
  },
  {
    name: "migrate",
    usage: "migrate <dir>",
    summary: "rewrite chanfana 2/3 sources for specroute (a diff; --write applies it)",
  },
];

const COMMAND_NAMES = COMMANDS.map((command) => command.name).join(", ");

/** What `specroute --help` prints: every command, one line each. */
export const HELP = `Usage: specroute <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.usage.padEnd(20)}${command.summary}`).join("\n")}

Run specroute <command> --help for a command's options. A TypeScript module is loaded with tsx,
which must be installed (npm install -D tsx); migrate needs TypeScript 5 or 6's compiler API.
`;

/** What `specroute openapi --help` prints. */
export const USAGE = `Usage: ${USAGE_LINE}

Writes the OpenAPI document of a specroute router. The module is imported, never served:
registering the routes is what builds the document. TypeScript modules are loaded with tsx.

Options:
  --export <name>       export holding the router: the value fromHono() or fromIttyRouter()
                        returned, the Hono app or itty-router router it was called on, or a
                        { fetch } object of one; default: 'default' if it holds one, else the
                        first export that does
  -o, --output <file>   write to <file> instead of stdout
  --format json|yaml    default: yaml if <file> ends in .yaml or .yml, else json
  --openapi 3|3.1|3.2   OpenAPI 3.0.3, 3.1.0 or 3.2.0; default: the router's openapiVersion option
  --hide-tag <tag>      leave out operations tagged <tag>, e.g. internal routes in a public
                        document (repeatable; routes marked x-ignore are always left out)
  --env KEY=VALUE       build the document an environment with this binding sees (schema
                        functions, hidden predicates); repeatable
  -h, --help            show this help
`;

type ValueOption = "exportName" | "output" | "format" | "openapi" | "hideTags" | "env";

const VALUE_OPTIONS: Record<string, ValueOption> = {
  "--export": "exportName",
  "--output": "output",
  "-o": "output",
  "--format": "format",
  "--openapi": "openapi",
  "--hide-tag": "hideTags",
  "--env": "env",
};

const OPENAPI_VERSIONS: readonly OpenAPIVersion[] = ["3", "3.1", "3.2"];

/**
 * Runs the CLI with `argv` (the arguments after the program name) and resolves to its exit code:
 * 0, or 1 after one line on stderr. Never exits the process.
 *
 * @example
 * await main(["openapi", "src/app.ts", "--format", "yaml", "-o", "openapi.yaml"]); // 0
 */
export async function main(
  argv: readonly string[],
  io: CliIO = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    const [command] = argv;
    if (command === "-h" || command === "--help") {
      io.stdout.write(HELP);
      return 0;
    }
    if (command === undefined) throw new CliError(`missing command (commands: ${COMMAND_NAMES}; see specroute --help)`);
    if (!COMMANDS.some((known) => known.name === command)) {
      throw new CliError(`unknown command '${command}' (commands: ${COMMAND_NAMES}; see specroute --help)`);
    }
    if (command === "migrate") {
      await migrateCommand(argv.slice(1), { ...io, cwd });
      return 0;
    }
    if (command === "init") {
      await initCommand(argv.slice(1), { ...io, cwd });
      return 0;
    }
    const parsed = parseArgs(argv.slice(1));
    if (parsed === "help") {
      io.stdout.write(USAGE);
      return 0;
    }
    await openapiCommand(parsed, { ...io, cwd });
    return 0;
  } catch (err) {
    const message = err instanceof CliError ? err.message : `unexpected error: ${oneLine(err)}`;
    io.stderr.write(`specroute: ${message}\n`);
    return 1;
  }
}

/** `specroute openapi`: import the module, take its router's document, write it. */
async function openapiCommand(args: OpenapiArgs, io: CliIO & { cwd: string }): Promise<void> {
  const { router, exportName, alsoFound } = await loadRouter(args.module, {
    cwd: io.cwd,
    exportName: args.exportName,
  });
  if (alsoFound.length > 0) {
    io.stderr.write(
      `specroute: using export '${exportName}'; also routers: ${alsoFound.join(", ")} (choose one with --export)\n`,
    );
  }
  let doc: OpenAPIDocument;
  try {
    // Every route compiled first, the undocumented ones too: a route that cannot compile fails here, named.
    router.compile?.();
    doc = router.getGeneratedSchema(args.openapi, args.env);
  } catch (err) {
    throw new CliError(`could not build the document of export '${exportName}': ${oneLine(err)}`);
  }
  const text = renderDocument(hideTags(doc, args.hideTags), args.format ?? formatForFile(args.output));
  await writeDocument(text, { file: args.output, cwd: io.cwd, stdout: io.stdout });
}

/** Parses and checks the arguments after `openapi`; "help" when help was asked for. */
function parseArgs(argv: readonly string[]): OpenapiArgs | "help" {
  const positionals: string[] = [];
  const values: Partial<Record<Exclude<ValueOption, "hideTags" | "env">, string>> = {};
  const env: Record<string, string> = {};
  const hidden: string[] = [];
  let help = false;

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === "-h" || token === "--help") {
      help = true;
      continue;
    }
    if (!token.startsWith("-") || token === "-") {
      positionals.push(token);
      continue;
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const flag = eq === -1 ? token : token.slice(0, eq);
    const option = VALUE_OPTIONS[flag];
    if (option === undefined) throw new CliError(`unknown option '${flag}' (see specroute openapi --help)`);
    let value: string | undefined;
    if (eq !== -1) {
      value = token.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      // A following option is a forgotten value, not a value; a lone "-" (stdout) is fine.
      if (next !== undefined && (!next.startsWith("-") || next === "-")) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === "") throw new CliError(`option '${flag}' needs a value`);
    if (option === "hideTags") {
      hidden.push(value);
      continue;
    }
    if (option === "env") {
      const separator = value.indexOf("=");
      if (separator < 1) throw new CliError(`--env needs KEY=VALUE, got '${value}'`);
      env[value.slice(0, separator)] = value.slice(separator + 1);
      continue;
    }
    if (values[option] !== undefined) throw new CliError(`option '${flag}' given more than once`);
    values[option] = value;
  }

  if (help) return "help";
  const [module, ...extra] = positionals;
  if (module === undefined) throw new CliError(`missing module path (usage: ${USAGE_LINE})`);
  if (extra.length > 0) throw new CliError(`unexpected argument '${extra[0]}' (usage: ${USAGE_LINE})`);

  const { format, openapi } = values;
  if (format !== undefined && !(DOCUMENT_FORMATS as readonly string[]).includes(format)) {
    throw new CliError(`--format must be json or yaml, got '${format}'`);
  }
  if (openapi !== undefined && !(OPENAPI_VERSIONS as readonly string[]).includes(openapi)) {
    throw new CliError(`--openapi must be 3, 3.1 or 3.2, got '${openapi}'`);
  }
  return {
    module,
    exportName: values.exportName,
    output: values.output === "-" ? undefined : values.output,
    format: format as DocumentFormat | undefined,
    openapi: openapi as OpenAPIVersion | undefined,
    hideTags: hidden,
    env,
  };
}

/**
 * Runs the CLI as the program: sets the exit code and exits once output is flushed, since the app
 * module may hold handles open (timers, database pools) that would otherwise keep the process alive.
 */
export async function run(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const code = await main(argv);
  process.exitCode = code;
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((done) => stream.write("", () => done()));
}

/** Whether this file is the program node was started with (`node dist/cli.js ...`), not an import. */
function isProgram(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isProgram()) void run();
