import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { Meta } from "../../src";
import type { ModelSet } from "./model-set";
import type { Entry, Project, Task } from "./models";

// The models of `models.ts`, declared with valibot: the same members, constraints and defaults. Each
// object is wrapped by toStandardJsonSchema, which gives specroute its JSON Schema.

const integer = () => v.pipe(v.number(), v.integer());

const ProjectObject = v.object({
  id: integer(),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(60)),
  budget: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
});

const TaskObject = v.object({
  projectId: integer(),
  id: integer(),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(120)),
  priority: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  status: v.picklist(["open", "doing", "closed"]),
  done: v.optional(v.boolean(), false),
  notes: v.optional(v.nullable(v.string())),
});

const EntryObject = v.object({
  shelf: integer(),
  id: integer(),
  rank: integer(),
  label: v.nullable(v.string()),
  title: v.string(),
});

const NoteObject = v.object({
  id: integer(),
  title: v.string(),
  body: v.nullable(v.string()),
  meta: v.nullable(v.object({ n: v.number(), list: v.array(v.number()) })),
  done: v.boolean(),
});
const VersionedNoteObject = v.object({ ...NoteObject.entries, version: integer() });

export const ProjectSchema = toStandardJsonSchema(ProjectObject);
export const TaskSchema = toStandardJsonSchema(TaskObject);

export const projectMeta = {
  model: { tableName: "projects", schema: ProjectSchema, primaryKeys: ["id"] },
  tags: ["projects"],
} satisfies Meta<any>;

export const projectCreateMeta = {
  ...projectMeta,
  fields: toStandardJsonSchema(v.omit(ProjectObject, ["id"])),
} satisfies Meta<any>;

export const taskMeta = {
  model: { tableName: "tasks", schema: TaskSchema, primaryKeys: ["projectId", "id"] },
  pathParameters: ["projectId", "id"],
  tags: ["tasks"],
} satisfies Meta<any>;

// The same types as zod's models infer.
const sameProject: Project = {} as v.InferOutput<typeof ProjectObject>;
const sameTask: Task = {} as v.InferOutput<typeof TaskObject>;
const sameEntry: Entry = {} as v.InferOutput<typeof EntryObject>;
void [sameProject, sameTask, sameEntry];

export const valibotModels: ModelSet = {
  library: "valibot",
  ProjectSchema,
  ProjectSummarySchema: toStandardJsonSchema(v.pick(ProjectObject, ["id", "name"])),
  projectMeta,
  projectCreateMeta,
  taskMeta,
  EntrySchema: toStandardJsonSchema(EntryObject),
  notes: {
    Note: toStandardJsonSchema(NoteObject),
    NoteFields: toStandardJsonSchema(v.omit(NoteObject, ["id"])),
    VersionedNote: toStandardJsonSchema(VersionedNoteObject),
    VersionedNoteFields: toStandardJsonSchema(v.omit(VersionedNoteObject, ["id"])),
  },
};
