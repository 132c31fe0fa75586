// Cloudflare Workers entry: env.DB is a D1 database with MIGRATIONS applied, env.API_KEY a secret.
import { app } from "./app";

export default app;
