import { SqlCreateEndpoint, SqlDeleteEndpoint, SqlListEndpoint, SqlReadEndpoint, SqlUpdateEndpoint } from "specroute";
import { z } from "zod";

/** A note as the API answers it; the `notes` table holds the same columns. */
export const Note = z.object({
  id: z.number().int(),
  text: z.string().min(1).max(500),
  done: z.boolean().default(false),
});

const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, tags: ["notes"] };
/** What a client sends: the database numbers the notes. */
const fields = Note.omit({ id: true });
/** The environment binding each endpoint reads its database from. */
const DB = "DB";

export class CreateNote extends SqlCreateEndpoint {
  _meta = { ...meta, fields };
  dbName = DB;
  schema = { summary: "Create a note" };
}

export class ListNotes extends SqlListEndpoint {
  _meta = meta;
  dbName = DB;
  schema = { summary: "List notes" };
  filterFields = ["done"];
  searchFields = ["text"];
  orderByFields = ["id", "text"];
  defaultOrderBy = "id";
}

export class GetNote extends SqlReadEndpoint {
  _meta = meta;
  dbName = DB;
  schema = { summary: "Get a note" };
}

export class UpdateNote extends SqlUpdateEndpoint {
  _meta = { ...meta, fields };
  dbName = DB;
  schema = { summary: "Change a note" };
}

export class DeleteNote extends SqlDeleteEndpoint {
  _meta = meta;
  dbName = DB;
  schema = { summary: "Delete a note" };
}
