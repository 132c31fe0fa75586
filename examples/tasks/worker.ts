// Cloudflare Workers entry: env.DB is a D1 database with MIGRATIONS applied, env.API_KEY a secret.
// Task writes record no changes here yet: live collections on D1 (their broker a Durable Object) are
// still to come, and until then a recorded write on D1 fails, so GET /projects/{projectId}/tasks/changes
// hears nothing on Workers.
import { createApp } from "./app";

export default createApp({ liveTasks: false }).app;
