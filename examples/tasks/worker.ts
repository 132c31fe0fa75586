// Cloudflare Workers entry: env.DB is a D1 database with MIGRATIONS applied, env.API_KEY a secret, and
// env.LIVE_CHANGES the Durable Object namespace of LiveChangesObject, which wakes the listeners of
// GET /projects/{projectId}/tasks/changes when a task write commits in any isolate.
import { app } from "./app";

export { LiveChangesObject } from "specroute";

export default app;
