import { type } from "arktype";
import { type TasksEndpoints, tasksEndpoints } from "./tasks-app";

// The tasks example's models (examples/tasks/models.ts) and TaskStats' schemas, in ArkType.

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

const Project = type({
  id: "number.integer",
  name: "0 < string <= 80",
  description: ["string <= 500 | null", "=", null],
  created_at: "string.date.iso",
});

const Task = type({
  projectId: "number.integer",
  id: "number.integer",
  title: "0 < string <= 200",
  status: "'todo' | 'doing' | 'done' = 'todo'",
  priority: "1 <= number.integer <= 5 = 3",
  due: type(isoDate).or("null").default(null),
});

export const arktypeSchemas = {
  Project,
  Task,
  NewProject: Project.omit("id", "created_at"),
  NewTask: Task.omit("projectId", "id"),
  StatsQuery: type({
    "projectId?": type("number.integer").describe("Only this project's tasks"),
    "due_before?": type(isoDate).describe("Only tasks due before this date"),
  }),
  StatsHeaders: type({
    "X-Client?": type(/^[a-z0-9-]{1,40}$/).describe("Name of the calling client, echoed back"),
  }),
  Stats: type({
    client: "string | null",
    counts: { todo: "number.integer", doing: "number.integer", done: "number.integer" },
  }),
};

/** The example's project and task endpoints, and TaskStats, over the ArkType models. */
export const arktypeTasks: TasksEndpoints<typeof arktypeSchemas> = tasksEndpoints(arktypeSchemas);
