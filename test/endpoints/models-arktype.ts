import { type } from "arktype";
import type { Meta } from "../../src";
import type { ModelSet } from "./model-set";
import type { Entry, Project, Task } from "./models";

// The models of `models.ts`, declared with ArkType: the same members, constraints and defaults.

export const ProjectSchema = type({
  id: "number.integer",
  name: "0 < string <= 60",
  budget: "number.integer >= 0 = 0",
});

export const TaskSchema = type({
  projectId: "number.integer",
  id: "number.integer",
  title: "0 < string <= 120",
  priority: "1 <= number.integer <= 5",
  status: "'open' | 'doing' | 'closed'",
  done: "boolean = false",
  "notes?": "string | null",
});

const EntrySchema = type({
  shelf: "number.integer",
  id: "number.integer",
  rank: "number.integer",
  label: "string | null",
  title: "string",
});

const Note = type({
  id: "number.integer",
  title: "string",
  body: "string | null",
  meta: type({ n: "number", list: "number[]" }).or("null"),
  done: "boolean",
});
const VersionedNote = Note.and({ version: "number.integer" });

export const projectMeta = {
  model: { tableName: "projects", schema: ProjectSchema, primaryKeys: ["id"] },
  tags: ["projects"],
} satisfies Meta<any>;

export const projectCreateMeta = { ...projectMeta, fields: ProjectSchema.omit("id") } satisfies Meta<any>;

export const taskMeta = {
  model: { tableName: "tasks", schema: TaskSchema, primaryKeys: ["projectId", "id"] },
  pathParameters: ["projectId", "id"],
  tags: ["tasks"],
} satisfies Meta<any>;

// The same types as zod's models infer.
const sameProject: Project = {} as typeof ProjectSchema.infer;
const sameTask: Task = {} as typeof TaskSchema.infer;
const sameEntry: Entry = {} as typeof EntrySchema.infer;
void [sameProject, sameTask, sameEntry];

export const arktypeModels: ModelSet = {
  library: "arktype",
  ProjectSchema,
  ProjectSummarySchema: ProjectSchema.pick("id", "name"),
  projectMeta,
  projectCreateMeta,
  taskMeta,
  EntrySchema,
  notes: {
    Note,
    NoteFields: Note.omit("id"),
    VersionedNote,
    VersionedNoteFields: VersionedNote.omit("id"),
  },
};
