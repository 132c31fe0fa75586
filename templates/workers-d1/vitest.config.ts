import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// The tests run inside workerd, the Workers runtime, with the bindings wrangler.jsonc declares.
export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      // The migrations, for test/apply-migrations.ts to apply to the test database.
      miniflare: { bindings: { TEST_MIGRATIONS: await readD1Migrations("migrations") } },
    }),
  ],
  test: { setupFiles: ["./test/apply-migrations.ts"] },
}));
