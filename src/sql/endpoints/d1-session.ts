/**
 * D1 read replication for the auto endpoints: which session a request opens (`openD1Session`) and what
 * the document says of the bookmark header (`withBookmarkHeader`). The SQL storage decides when, from an endpoint's
 * `d1Sessions` and `d1BookmarkHeader` fields.
 */
import { z } from "zod";
import type { OpenAPIRouteSchema, ResponseConfig } from "../../core/schema-types";
import { isPlainZodObject } from "../../endpoints/schema-helpers";
import { invalidField } from "../../errors/exceptions";
import { compose, headersNotIn } from "../../schema";
import type { D1DatabaseLike, D1SessionLike } from "../drivers/d1";
import type { DatabaseAccess } from "./table-storage";

// D1's bookmarks (Sessions API, Time Travel): three 8-digit and one 32-digit lowercase hex groups, which
// sort by age. Anything else would reach D1 and fail there, or (locally) sort after every real bookmark.
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/**
 * A sent bookmark header checked by its own rule, whatever the app's header schema made of it:
 * undefined when not sent (or empty), a 400 naming the header when malformed.
 */
export function checkedBookmark(sent: string, name: string): string | undefined {
  if (sent === "") return undefined;
  if (!BOOKMARK.test(sent)) throw invalidField(BOOKMARK_MESSAGE, ["headers", name]);
  return sent;
}

const BOOKMARK_MESSAGE = "must be a bookmark this API answered, e.g. 00000001-00000002-00000003-<32 hex digits>";

/** The bookmark request header a reading endpoint declares: optional, a 400 naming it when malformed. */
export function bookmarkRequestHeader() {
  return z
    .string()
    .regex(BOOKMARK, BOOKMARK_MESSAGE)
    .optional()
    .describe(
      "A D1 bookmark an earlier answer carried: this read sees the database at least as new as it (read your own writes). Without it, the nearest replica answers.",
    );
}

const bookmarkResponseHeader = {
  description:
    "The D1 bookmark of the database as this request saw it: send it back on later reads to see at least this much.",
  schema: { type: "string" },
};

/**
 * `schema` with the bookmark header `name` documented: on the request when the endpoint reads (unless
 * the schema already declares it), on every 2xx answer. Headers declared as a zod object are extended;
 * any other header schema is validated as it is, with the bookmark header beside it.
 *
 * @example
 * withBookmarkHeader(schema, "x-d1-bookmark", "read")
 */
export function withBookmarkHeader(
  schema: OpenAPIRouteSchema,
  name: string,
  access: Exclude<DatabaseAccess, "stream">,
): OpenAPIRouteSchema {
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, config] of Object.entries(schema.responses ?? {})) {
    responses[status] = /^2\d\d$/.test(status) ? withResponseHeader(config as ResponseConfig, name) : config;
  }
  const request = { ...schema.request };
  if (access === "read") {
    const headers = request.headers;
    const bookmark = { [name]: bookmarkRequestHeader() };
    if (headers === undefined) request.headers = z.object(bookmark);
    else if (!isPlainZodObject(headers)) {
      // A schema extending would change (another library's, a transformed or refined object) is validated whole beside it.
      request.headers = compose.alongside(headers, bookmark);
    } else if (name in headersNotIn(bookmark, Object.keys(headers.shape))) {
      request.headers = headers.extend(bookmark);
    }
  }
  return { ...schema, request, responses };
}

function withResponseHeader(config: ResponseConfig, name: string): ResponseConfig {
  const headers = config.headers;
  if (headers instanceof z.ZodObject) {
    return { ...config, headers: headers.extend({ [name]: z.string().describe(bookmarkResponseHeader.description) }) };
  }
  return {
    ...config,
    headers: { ...(headers as Record<string, unknown> | undefined), [name]: bookmarkResponseHeader },
  };
}

/**
 * A D1 session for one request, or undefined when the binding has no Sessions API (an older runtime).
 * A write starts on the primary; a read at least as new as `bookmark`, else on any replica.
 *
 * @example
 * const session = openD1Session(env.DB, "read", request.headers.get("x-d1-bookmark") ?? undefined);
 */
export function openD1Session(
  binding: D1DatabaseLike,
  access: Exclude<DatabaseAccess, "stream">,
  bookmark: string | undefined,
): D1SessionLike | undefined {
  if (typeof binding.withSession !== "function") return undefined;
  const start = access === "write" ? "first-primary" : (bookmark ?? "first-unconstrained");
  return binding.withSession(start);
}
