import type { D1Migration } from "cloudflare:test";
import type { Env as AppEnv } from "../src/app";

// Types for the tests: `env` holds the app's bindings and the migrations vitest.config.ts adds,
// `exports.default` is the Worker of src/index.ts.
declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
