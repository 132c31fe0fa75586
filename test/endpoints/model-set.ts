import type { Meta } from "../../src";
import type { ModelSchema } from "../../src/endpoints/types";

/**
 * The models the shared endpoint suites run over, declared once per schema library (zod in `models.ts`,
 * valibot in `models-valibot.ts`, ArkType in `models-arktype.ts`) with the same members and constraints,
 * so the same assertions hold whichever library declared them.
 */
export interface ModelSet {
  /** The library that declared the models; the non-zod runs name it in their titles. */
  library: "zod" | "valibot" | "arktype";
  /** A project: integer id, name of 1 to 60 characters, budget an integer ≥ 0 defaulting to 0. */
  ProjectSchema: ModelSchema;
  /** The project's id and name only: the CRUD suite's serializer schema. */
  ProjectSummarySchema: ModelSchema;
  projectMeta: Meta<any>;
  /** Creating a project: `fields` is the project without its id. */
  projectCreateMeta: Meta<any>;
  /** A task of a project: composite key (projectId, id), nested under the project's path. */
  taskMeta: Meta<any>;
  /** The cursor suite's shelf entry: composite key (shelf, id), integer rank, nullable label, title. */
  EntrySchema: ModelSchema;
  /** The conditional-requests suite's note, its id left out (a create's fields), and both with a version. */
  notes: {
    Note: ModelSchema;
    NoteFields: ModelSchema;
    VersionedNote: ModelSchema;
    VersionedNoteFields: ModelSchema;
  };
}

/** ` (valibot)` in a title of a run over valibot's models; nothing for zod's, whose titles stay as they were. */
export function librarySuffix(models: ModelSet): string {
  return models.library === "zod" ? "" : ` (${models.library})`;
}
