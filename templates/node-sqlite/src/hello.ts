import { contentJson, OpenAPIRoute } from "specroute";
import { z } from "zod";

/** A hand-written endpoint: its query is validated and typed before `handle()` runs. */
export class Hello extends OpenAPIRoute {
  schema = {
    tags: ["hello"],
    summary: "Greet someone",
    request: { query: z.object({ name: z.string().min(1).max(100).default("world") }) },
    responses: {
      "200": { description: "The greeting", ...contentJson(z.object({ greeting: z.string() })) },
    },
  };

  async handle() {
    const { query } = await this.getValidatedData();
    return { greeting: `Hello, ${query.name}!` };
  }
}
