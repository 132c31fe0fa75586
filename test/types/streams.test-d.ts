import { createClient, type ErrorEnvelope, type ItemStream } from "specroute/client";
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
type TaskEvent =
  | { event: "created" | "updated" | "deleted"; id: string; data: { object: Task; etag?: string } }
  | { event: "reset"; id?: undefined; data: { message: string } }
  | { event: "lagged" | "reconnect"; id: string; data: { message: string } }
  | { event: "error"; id?: undefined; data: ErrorEnvelope };

describe("a streamed answer through the typed client", () => {
  it("reads the example's live task changes as an async iterator of events told apart by kind, with the place to reconnect from", async () => {
    const api = createClient<TasksApi>("http://127.0.0.1:8787");
    const listening = await api.get("/projects/:projectId/tasks/changes", { param: { projectId: 1 } });
    if (listening.ok) {
      expectTypeOf(listening.data).toEqualTypeOf<ItemStream<TaskEvent>>();
      // The place to reconnect from, before any event has come.
      expectTypeOf(listening.data.lastEventId).toEqualTypeOf<string | undefined>();
      for await (const change of listening.data) {
        if (change.event === "updated")
          expectTypeOf(change.data.object.status).toEqualTypeOf<"todo" | "doing" | "done">();
        if (change.event === "reset") expectTypeOf(change.data.message).toEqualTypeOf<string>();
        if (change.event === "reconnect") expectTypeOf(change.id).toEqualTypeOf<string>();
        // @ts-expect-error: an event has no members beyond event, id and data
        change.payload;
      }
    }
  });
});
