import { builtinModules } from "node:module";

/** Names npm refuses whatever their spelling. */
const RESERVED = new Set(["node_modules", "favicon.ico"]);
const MAX_LENGTH = 214;

/**
 * Why npm would refuse `name` as a new unscoped package's name, or `undefined` when it takes it.
 * The rules are npm's (validate-npm-package-name's for new packages), plus Node's own module names,
 * which a package could never be imported under.
 *
 * @example
 * packageNameProblem("my-api"); // undefined
 * packageNameProblem("My API"); // "it contains capital letters"
 */
export function packageNameProblem(name: string): string | undefined {
  if (name === "") return "it is empty";
  if (name.trim() !== name) return "it starts or ends with a space";
  if (name.length > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters`;
  if (name.startsWith(".") || name.startsWith("_")) return "it starts with a period or an underscore";
  if (name !== name.toLowerCase()) return "it contains capital letters";
  if (/[~'!()*]/.test(name)) return "it contains one of ~'!()*";
  if (encodeURIComponent(name) !== name) return "it contains characters that are not URL-safe";
  if (RESERVED.has(name)) return "npm reserves it";
  if (builtinModules.includes(name)) return "it is the name of a Node.js built-in module";
  return undefined;
}

/**
 * A name npm takes, made from `text` (a directory's name): lower case, runs of other characters
 * turned into one "-", no leading period, underscore or "-"; `undefined` when nothing is left.
 *
 * @example
 * suggestPackageName("My API"); // "my-api"
 */
export function suggestPackageName(text: string): string | undefined {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "")
    .replace(/-+$/, "")
    .slice(0, MAX_LENGTH);
  return name !== "" && packageNameProblem(name) === undefined ? name : undefined;
}
