// The Worker: requests go to the Hono app, bindings (env.DB) arrive as its env.
import { app } from "./app";

export default app;
