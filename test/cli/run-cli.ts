import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main";

/** The repository root, where the CLI runs unless told otherwise. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs the CLI in-process from `cwd`, capturing what it writes. */
export async function runCli(argv: string[], cwd = ROOT) {
  const out = { stdout: "", stderr: "" };
  const code = await main(argv, {
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
    cwd,
  });
  return { code, ...out };
}
