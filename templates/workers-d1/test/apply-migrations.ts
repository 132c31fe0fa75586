import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Each test file starts from a database with every migration in migrations/ applied.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
