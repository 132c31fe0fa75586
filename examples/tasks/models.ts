import { z } from "zod";

export const Project = z.object({
  id: z.number().int().openapi({ example: 1 }),
  name: z.string().min(1).max(80).openapi({ example: "Website relaunch" }),
  description: z.string().max(500).nullable().default(null),
  created_at: z.iso.datetime().openapi({ example: "2026-01-05T09:30:00.000Z" }),
});

export const Task = z.object({
  projectId: z.number().int(),
  id: z.number().int(),
  title: z.string().min(1).max(200).openapi({ example: "Write the launch post" }),
  status: z.enum(["todo", "doing", "done"]).default("todo"),
  priority: z.number().int().min(1).max(5).default(3),
  due: z.iso.date().nullable().default(null),
});

// `unique` names the UNIQUE column (see migrations.ts), so creates and updates document their conflict answer.
export const projectModel = { tableName: "projects", schema: Project, primaryKeys: ["id"], unique: ["name"] };
export const taskModel = { tableName: "tasks", schema: Task, primaryKeys: ["projectId", "id"] };

/** What the API keeps of an uploaded file: its metadata and a digest of its bytes. */
export const Attachment = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  filename: z.string().openapi({ example: "notes.txt" }),
  content_type: z.string().openapi({ example: "text/plain" }),
  size: z.number().int().openapi({ example: 42 }),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  note: z.string().nullable(),
  created_at: z.iso.datetime(),
});

/** What a client sends to create a project: the server sets the id and the creation time. */
export const NewProject = Project.omit({ id: true, created_at: true });
/** What a client sends to create a task: the server numbers tasks within their project. */
export const NewTask = Task.omit({ projectId: true, id: true });
