// A live collection on D1 whose feed names a broker of the app's own
// (docs/live.md: "A feed's broker option takes any ChangeBroker ... and optionally recorded(tx,
// collection), run in the write's transaction once its changes are recorded"), here one whose bus refuses.
import { Hono } from "hono";
import { type ChangeBroker, changeFeed, D1CreateEndpoint, D1ListEndpoint, fromHono } from "specroute";
import { z } from "zod";

const refusing: ChangeBroker = {
  watch: async () => async () => {},
  async recorded() {
    throw new Error("the bus refused");
  },
  committed() {},
};

const Note = z.object({ id: z.number().int(), text: z.string().min(1) });
const model = { tableName: "notes", schema: Note, primaryKeys: ["id"] };

class CreateNote extends D1CreateEndpoint {
  _meta = { model, fields: Note.omit({ id: true }), changes: changeFeed({ broker: refusing }) };
}
class ListNotes extends D1ListEndpoint {
  _meta = { model };
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
fromHono(app).post("/notes", CreateNote).get("/notes", ListNotes);
export default app;
