import { createClient } from "specroute/client";
import { describe, expectTypeOf, it } from "vitest";
import type { TasksApi } from "../../examples/tasks/app";

type Task = {
  projectId: number;
  id: number;
  title: string;
  status: "todo" | "doing" | "done";
  priority: number;
  due: string | null;
};
type TaskEvent = {
  data: { type: "created" | "updated" | "deleted"; task: Task };
  event?: string | undefined;
  id?: string | undefined;
  retry?: number | undefined;
};

describe("a streamed answer through the typed client", () => {
  it("reads the example's Server-Sent Events as an async iterator of typed events", async () => {
    const api = createClient<TasksApi>("http://127.0.0.1:8787");
    const listening = await api.get("/projects/:projectId/events", { param: { projectId: 1 } });
    if (listening.ok) {
      expectTypeOf(listening.data).toEqualTypeOf<AsyncIterableIterator<TaskEvent>>();
      for await (const event of listening.data) {
        expectTypeOf(event.data.task.status).toEqualTypeOf<"todo" | "doing" | "done">();
        // @ts-expect-error: an event has no members beyond data, event, id and retry
        event.payload;
      }
    }
  });
});
