// A route's body plan, compiled once at registration: the media types its body may come in, how each is
// read, and whether a `text/plain` body is read as its JSON. Reading a request's body by it is read-body.ts's.
import { z } from "zod";
import { type FileConstraints, type ScalarKind, type StandardJsonSchema, seam, standardSchemaOf } from "../../schema";
import { essenceOf, isJsonEssence, TEXT_PLAIN, wildcardMatches } from "../media-type";
import type { OpenAPIRouteSchema } from "../schema-types";
import { type JsonValues, jsonValues } from "./json-values";

/** How a body of one media type is read: JSON, a URL-encoded form, or multipart form data. */
type MediaKind = "json" | "form" | "multipart";

/** A member of a form body: how its string values are coerced, and its limits when it holds files. */
interface FormField {
  key: string;
  scalar: ScalarKind;
  array: boolean;
  file: FileConstraints | null;
}

/** One declared media type of a request body, compiled at registration. */
export interface MediaPlan {
  /** The request part it parses, as a `PartPlan` names its own: where its output and its issues go. */
  name: "body";
  /** How it is read; null for a declared type specroute leaves unread for `handle()` to read. */
  kind: MediaKind | null;
  /** The media type as declared. */
  mediaType: string;
  /** Its lower-case `type/subtype`, parameters dropped. */
  essence: string;
  schema: z.ZodType;
  /** The schema as a Standard Schema when another library validates it (valibot, ArkType), else null (zod). */
  standard: StandardJsonSchema | null;
  required: boolean;
  /** Declared members of a form body, or null when its schema is not an object we can see into. */
  fields: FormField[] | null;
  /** The same members by name, for the multipart reader's per-part limits. */
  fieldsByName: ReadonlyMap<string, FormField>;
  known: ReadonlySet<string>;
  /** For a JSON body, what turns its date-time and integer members into the Dates and bigints its schema parses; else null. */
  jsonValues: JsonValues | null;
}

/** Every media type a route's body may come in. */
export interface BodyPlan {
  media: MediaPlan[];
  /** The declared media types, for messages: "application/json, multipart/form-data". */
  accepted: string;
  /** Whether a request without a body is refused. */
  required: boolean;
  /**
   * The declared JSON a `text/plain` body is read as when no declared type takes it, as chanfana reads
   * any body as JSON; null when the route refuses it (see `withPlainText`).
   */
  plainTextAs: MediaPlan | null;
  /**
   * Why the route refuses a JSON body sent as `text/plain` or without a Content-Type (both reach it from
   * another site with the user's credentials), for the 415's message; null where it reads them.
   */
  plainTextRefused: string | null;
}

/** Whether a route reads a `text/plain` body as its JSON: yes, or no (`because`, a clause for the 415). */
export type PlainTextRule = { read: true } | { read: false; because: string };

/** Values of a form body grouped by name, in arrival order; `undefined` marks a dropped file. */
export type FormValues = Map<string, unknown[]>;

const FORM = "application/x-www-form-urlencoded";
const ANY_VALUE: z.ZodType = z.unknown();
const MULTIPART = "multipart/form-data";

/** Compiles `schema.request.body`; null when it declares no media type specroute reads. */
export function compileBodyPlan(schema: OpenAPIRouteSchema): BodyPlan | null {
  const body = schema.request?.body;
  if (!body?.content) return null;
  const media: MediaPlan[] = [];
  for (const [mediaType, config] of Object.entries(body.content)) {
    if (!config?.schema) continue;
    const essence = essenceOf(mediaType);
    const kind = kindOf(essence);
    // A plain JSON Schema object is documented as written and lets any value through, as in chanfana.
    const schema = seam.isSchema(config.schema) ? config.schema : ANY_VALUE;
    const plain = schema === ANY_VALUE;
    const shape = kind === "form" || kind === "multipart" ? seam.objectShape(schema) : null;
    const fields = shape
      ? Object.entries(shape).map(([key, member]) => ({
          key,
          ...seam.fieldKind(member),
          file: seam.fileConstraints(member),
        }))
      : null;
    media.push({
      name: "body",
      kind,
      mediaType,
      essence,
      schema,
      standard: standardSchemaOf(schema),
      required: body.required ?? (plain || !seam.acceptsUndefined(schema)),
      fields,
      fieldsByName: new Map(fields?.map((field) => [field.key, field])),
      known: new Set(fields?.map((field) => field.key) ?? []),
      jsonValues: kind === "json" && !plain ? jsonValues(schema) : null,
    });
  }
  if (!media.some((plan) => plan.kind !== null)) return null;
  const plan: BodyPlan = {
    media,
    accepted: media.map((plan) => plan.mediaType).join(", "),
    required: media.some((plan) => plan.required),
    plainTextAs: null,
    plainTextRefused: null,
  };
  return withPlainText(plan, { read: true });
}

/**
 * `plan` reading a `text/plain` body by `rule`: as its declared JSON, or refused with a 415. Only a plan
 * that declares JSON, and no type that takes `text/plain` itself, has such a body to read.
 */
export function withPlainText(plan: BodyPlan, rule: PlainTextRule): BodyPlan {
  const json = plan.media.find((media) => media.kind === "json");
  const taken = plan.media.some((media) => media.essence === TEXT_PLAIN || wildcardMatches(media.essence, TEXT_PLAIN));
  if (json === undefined || taken) return plan;
  const plainTextAs = rule.read ? json : null;
  const plainTextRefused = rule.read ? null : rule.because;
  if (plan.plainTextAs === plainTextAs && plan.plainTextRefused === plainTextRefused) return plan;
  return { ...plan, plainTextAs, plainTextRefused };
}

/** How a declared media type is read; null for one specroute leaves unread for `handle()`. */
function kindOf(essence: string): MediaKind | null {
  if (isJsonEssence(essence)) return "json";
  if (essence === FORM) return "form";
  if (essence === MULTIPART) return "multipart";
  return null;
}
