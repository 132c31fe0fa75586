import { afterAll, describe } from "vitest";
import { closeHttpHarnesses, httpHarnesses, loopbackServer } from "../helpers";
import { runCommonSuite } from "./common.case";
import { runFormsSuite } from "./forms.case";
import { runResponsesSuite } from "./responses.case";
import { runSecuritySuite } from "./security.case";

// The shared adapter suites again, over real HTTP on @hono/node-server: there specroute reads headers and
// bodies from the Node request the server passes in the environment, in-process from the fetch Request.
// Under Bun and Deno (the runtime matrix) the server is the runtime's own.
afterAll(closeHttpHarnesses);

for (const harness of httpHarnesses) {
  describe(`over HTTP (${loopbackServer}): ${harness.name}`, () => {
    runCommonSuite(harness);
    runFormsSuite(harness);
    runSecuritySuite(harness);
    runResponsesSuite(harness);
  });
}
