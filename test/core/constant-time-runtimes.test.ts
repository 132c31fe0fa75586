// constantTimeEqual answers on Bun, Deno and workerd as on Node (constant-time.test.ts). Apart from the Node
// tests because each runtime loads the source itself: `npm run mutation` leaves this file out, as no mutant
// can be switched on in another process.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../runtimes/bundle";
import { RUNTIMES, root, runtimeEnv } from "../runtimes/matrix/runtimes";

/** Prints what the helper answers for the cases every runtime must agree on, as JSON. */
const PROBE = `import { constantTimeEqual } from "${join(root, "src/core/security/constant-time.ts")}";
const answers = [
  await constantTimeEqual("k-8f3a", "k-8f3a"),
  await constantTimeEqual("k-8f3b", "k-8f3a"),
  await constantTimeEqual("grüße", new TextEncoder().encode("grüße")),
  await constantTimeEqual("", ""),
  await constantTimeEqual("k-8f3a", undefined),
];
console.log(JSON.stringify(answers));
`;
const EXPECTED = [true, false, true, false, false];
const run = promisify(execFile);

describe.each(RUNTIMES.filter((runtime) => runtime.name === "Bun" || runtime.name === "Deno"))(
  "constantTimeEqual on $name",
  (runtime) => {
    it("answers as on Node", async () => {
      mkdirSync(join(root, ".artifacts"), { recursive: true });
      const probe = join(root, ".artifacts", `constant-time-probe-${runtime.name}-${process.pid}.ts`);
      writeFileSync(probe, PROBE);
      try {
        const args = runtime.name === "Deno" ? ["run", "--no-config", probe] : [probe];
        const { stdout } = await run(runtime.binary, args, { cwd: root, env: runtimeEnv() });
        expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual(EXPECTED);
      } finally {
        rmSync(probe, { force: true });
      }
    });
  },
);

describe("constantTimeEqual in workerd", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/core/constant-time-worker.ts", { bindings: { API_KEY: "k-8f3a" } });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("answers as on Node", async () => {
    expect(await (await worker.fetch("/")).json()).toEqual(EXPECTED);
  });
});
