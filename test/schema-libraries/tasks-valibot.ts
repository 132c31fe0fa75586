import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { type TasksEndpoints, tasksEndpoints } from "./tasks-app";

// The tasks example's models (examples/tasks/models.ts) and TaskStats' schemas, in valibot.

const ProjectObject = v.object({
  id: v.pipe(v.number(), v.integer()),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(80)),
  description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500))), null),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});

const TaskObject = v.object({
  projectId: v.pipe(v.number(), v.integer()),
  id: v.pipe(v.number(), v.integer()),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  status: v.optional(v.picklist(["todo", "doing", "done"]), "todo"),
  priority: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)), 3),
  due: v.optional(v.nullable(v.pipe(v.string(), v.isoDate())), null),
});

const count = v.pipe(v.number(), v.integer());

export const valibotSchemas = {
  Project: toStandardJsonSchema(ProjectObject),
  Task: toStandardJsonSchema(TaskObject),
  NewProject: toStandardJsonSchema(v.omit(ProjectObject, ["id", "created_at"])),
  NewTask: toStandardJsonSchema(v.omit(TaskObject, ["projectId", "id"])),
  StatsQuery: toStandardJsonSchema(
    v.object({
      projectId: v.optional(v.pipe(v.number(), v.integer(), v.description("Only this project's tasks"))),
      due_before: v.optional(v.pipe(v.string(), v.isoDate(), v.description("Only tasks due before this date"))),
    }),
  ),
  StatsHeaders: toStandardJsonSchema(
    v.object({
      "X-Client": v.optional(
        v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,40}$/), v.description("Name of the calling client, echoed back")),
      ),
    }),
  ),
  Stats: toStandardJsonSchema(
    v.object({
      client: v.nullable(v.string()),
      counts: v.object({ todo: count, doing: count, done: count }),
    }),
  ),
};

/** The example's project and task endpoints, and TaskStats, over the valibot models. */
export const valibotTasks: TasksEndpoints<typeof valibotSchemas> = tasksEndpoints(valibotSchemas);
