// The zod schemas the bare apps (apps/hono-zod.js, apps/itty-zod.js) parse by hand: one builder per
// endpoint, called once per route, so each route has its own schemas as the other frameworks' apps do.
import { z } from "zod";
import { STATUSES } from "./tasks.js";

export const taskParams = () => z.object({ id: z.coerce.number().int() });
export const taskCreate = () =>
  z.object({
    title: z.string().min(1).max(120),
    assignee: z.email(),
    priority: z.number().int().min(1).max(5),
    done: z.boolean(),
    status: z.enum(STATUSES),
    due: z.iso.date().optional(),
  });
// Strict: specroute and chanfana refuse undeclared query parameters too.
export const taskQuery = () =>
  z.strictObject({
    page: z.coerce.number().int().min(1).default(1),
    per_page: z.coerce.number().int().min(1).max(100).default(20),
    status: z.enum(STATUSES).optional(),
    search: z.string().min(1).max(50).optional(),
  });
