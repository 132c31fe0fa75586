import type { z } from "zod";
import { problemsToException } from "../errors/render";
import {
  membersOf,
  type SchemaObject,
  type StandardJsonSchema,
  type StandardProblem,
  seam,
  validateStandard,
} from "../schema";
import type { ResolvedMeta } from "./meta";

/** Where a field of what is stored came from, for a 400's path: the URL's keys are `params`, the rest `body`. */
type At = ReadonlyArray<string | number>;

/** What an update's refusal says instead of a library's message that quotes a stored value the client did not send. */
const STORED_VALUE_REFUSED = "Refused by the model, on the stored object with the changes sent";

/** Stored values written shorter than this are not looked for in a message: they reveal little, and match much. */
const QUOTABLE_LENGTH = 3;
/** How deep into a stored JSON value, and for how many strings, a refusal's messages are searched. */
const QUOTABLE_DEPTH = 8;
const QUOTABLE_STRINGS = 512;

/**
 * A model's own validation over the object a create or an update is about to store, compiled once per
 * route. The body an auto endpoint declares is the model with the path's keys (and the version column)
 * left out, and a PATCH's is every member optional: checked member by member, neither runs a check over
 * the object, and a Standard model's members apply their transforms only where the whole object passed.
 * So before anything is written the model (the Meta's `fields`) validates the object whole: on a create
 * the body as sent with the URL's keys, on an update the stored row with the sent members laid over it;
 * what is stored is its output. A zod object with no check over it needs none of this (its members'
 * validators are the object's), and keeps its behaviour: `ModelCheck.forCreate`/`forUpdate` give null.
 */
export class ModelCheck {
  /** The model whose output is stored; zod's and Standard models both validate through `~standard`. */
  private readonly model: StandardJsonSchema;
  /** The model's members: what is read into the check, and out of its output. */
  private readonly members: readonly string[];
  /** Optional members: a NULL column of a stored row is the member left out, not a null sent. */
  private readonly absentWhenNull: ReadonlySet<string>;
  /** The route's path keys: a create takes their values from the URL, and an issue under one names it in `params`. */
  private readonly pathKeys: ReadonlySet<string>;
  /** The version column the storage writes (a new row's is 1): never taken from the check's output. */
  private readonly versionField: string | undefined;

  private constructor(
    meta: ResolvedMeta,
    pathKeys: readonly string[],
    /** A create whose body is the model itself: its validation already ran the model whole on the body. */
    private readonly bodyIsModel: boolean,
  ) {
    const members = membersOf(meta.fields);
    this.model = meta.fields as unknown as StandardJsonSchema;
    this.members = Object.keys(members);
    this.absentWhenNull = new Set(this.members.filter((key) => seam.acceptsUndefined(members[key]!)));
    this.pathKeys = new Set(pathKeys);
    this.versionField = meta.model.versionField;
    Object.freeze(this);
  }

  /**
   * The check a create over `meta` on a path with `pathKeys` runs, or null when the body's own validation
   * already is the model's (a zod object with no check over it).
   */
  static forCreate(meta: ResolvedMeta, pathKeys: readonly string[]): ModelCheck | null {
    if (seam.validatesMemberwise(meta.fields)) return null;
    const members = Object.keys(membersOf(meta.fields));
    const version = meta.model.versionField;
    const leftOut = [...pathKeys, ...(version === undefined ? [] : [version])].some((key) => members.includes(key));
    return new ModelCheck(meta, pathKeys, !leftOut);
  }

  /**
   * The check an update (PUT or PATCH) over `meta` runs on the stored row with the sent members laid over
   * it, or null as for a create. A model that cannot validate a stored row again is refused here.
   */
  static forUpdate(meta: ResolvedMeta, pathKeys: readonly string[]): ModelCheck | null {
    if (seam.validatesMemberwise(meta.fields)) return null;
    for (const [key, member] of Object.entries(membersOf(meta.fields))) {
      const [accepts, outputs] = [jsonTypes(member, "input"), jsonTypes(member, "output")];
      if (accepts && outputs?.some((type) => !accepts.includes(type))) {
        throw new Error(
          `The model's member "${key}" outputs ${outputs.join(" or ")} but accepts ${accepts.join(" or ")}: ` +
            "an update validates the stored row again with the changes laid over it, and a stored value would be " +
            "refused. Give the Meta `fields` whose members accept what they output (the transform done before the write).",
        );
      }
    }
    return new ModelCheck(meta, pathKeys, false);
  }

  /**
   * What a create stores: the model's output for the body as sent (`sent`, before validation) with the
   * URL's keys (`path`), its members only, the URL's keys laid over it. `validated` is the body as its own
   * validation output it, which is the model's output when the body is the model. `at` is where the
   * body sits in the request (`["body"]`, or `["body", 3]` for the fourth object of a bulk create).
   *
   * @example
   * await check.created({ email: " A@B.CO " }, validated, { org_id: 7 }, ["body"]) // { org_id: 7, email: "a@b.co" }
   */
  async created(
    sent: unknown,
    validated: Record<string, unknown>,
    path: Record<string, unknown>,
    at: At,
  ): Promise<Record<string, unknown>> {
    if (this.bodyIsModel) return { ...this.#pick(validated), ...path };
    const raw = isRecord(sent) ? sent : {};
    const input: Record<string, unknown> = {};
    for (const key of this.members) {
      if (Object.hasOwn(path, key)) input[key] = path[key];
      else if (key === this.versionField) input[key] = 1;
      else if (Object.hasOwn(raw, key)) input[key] = raw[key];
    }
    const output = this.#pick(await this.#validate(input, at));
    if (this.versionField !== undefined) delete output[this.versionField];
    return { ...output, ...path };
  }

  /**
   * What an update stores of the members it changes: the model's output for them, validated with the
   * stored row (`stored`) laid under them. `changes` are the members the client sent, as sent (before
   * validation); a member it did not send keeps its stored value, so a transform never runs twice.
   *
   * @example
   * await check.updated({ org_id: 7, id: 1, role: "admin", approved_by: "ada" }, { email: " A@B.CO " }) // { email: "a@b.co" }
   */
  async updated(stored: Record<string, unknown>, changes: Record<string, unknown>): Promise<Record<string, unknown>> {
    const input: Record<string, unknown> = {};
    const kept: unknown[] = [];
    for (const key of this.members) {
      if (Object.hasOwn(changes, key)) input[key] = changes[key];
      else if (Object.hasOwn(stored, key)) {
        const value = stored[key];
        if (value !== undefined && !(value === null && this.absentWhenNull.has(key))) {
          input[key] = value;
          kept.push(value);
        }
      }
    }
    const output = this.#pick(await this.#validate(input, ["body"], kept));
    const written: Record<string, unknown> = {};
    for (const key of Object.keys(changes)) written[key] = this.members.includes(key) ? output[key] : changes[key];
    return written;
  }

  /**
   * The model's output for `input`, or a thrown 400 naming each issue's field. A library may quote what it
   * judged (ArkType's `(was {...})`, valibot's `received "..."`): a message quoting a string of `hidden` (the
   * stored values the client did not send, which the serializer may never answer) is replaced.
   */
  async #validate(input: Record<string, unknown>, at: At, hiddenValues: readonly unknown[] = []): Promise<unknown> {
    const outcome = await validateStandard(this.model, input);
    if (outcome.ok) return outcome.value;
    // Past the bounds of the search, no library message is answered.
    const hidden = quotedForms(hiddenValues);
    const quotes = (message: string) => hidden === null || hidden.some((value) => message.includes(value));
    throw problemsToException(
      outcome.problems.map(({ message, path }) => ({
        message: quotes(message) ? STORED_VALUE_REFUSED : message,
        path: this.#located(path, at),
      })),
    );
  }

  /** A problem's path in the request: under a path key, the URL's parameter; else under `at`. */
  #located(path: StandardProblem["path"], at: At): Array<string | number> {
    const [first] = path;
    return typeof first === "string" && this.pathKeys.has(first) ? ["params", ...path] : [...at, ...path];
  }

  /** The model's members of its output (an undeclared key a library keeps, as ArkType does, is dropped). */
  #pick(output: unknown): Record<string, unknown> {
    if (!isRecord(output)) throw new Error("The model's output is not an object: there is nothing to store");
    const picked: Record<string, unknown> = {};
    for (const key of this.members) if (Object.hasOwn(output, key)) picked[key] = output[key];
    return picked;
  }
}

/**
 * How a message could quote the scalars in `values` (inside a JSON value too): as written, and a string
 * JSON-escaped; null when there are more of them, or deeper ones, than the bounds let it look for.
 */
function quotedForms(values: readonly unknown[]): string[] | null {
  const forms = new Set<string>();
  let complete = true;
  const visit = (value: unknown, depth: number) => {
    if (typeof value === "number" || typeof value === "bigint") value = String(value);
    else if (value instanceof Date) value = Number.isNaN(value.getTime()) ? "" : value.toISOString();
    if (typeof value === "string") {
      if (value.length < QUOTABLE_LENGTH) return;
      if (forms.size >= QUOTABLE_STRINGS * 2) complete = false;
      else forms.add(value).add(JSON.stringify(value).slice(1, -1));
    } else if (typeof value === "object" && value !== null) {
      if (depth >= QUOTABLE_DEPTH) complete = false;
      else for (const inner of Object.values(value)) if (complete) visit(inner, depth + 1);
    }
  };
  for (const value of values) if (complete) visit(value, 0);
  return complete ? [...forms] : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON types a member's side states (integer counted as number, null left out), or null when it states none. */
function jsonTypes(member: z.ZodType, io: "input" | "output"): string[] | null {
  let schema: SchemaObject;
  try {
    schema = seam.toJsonSchema(member, "3.1", io).schema;
  } catch {
    return null;
  }
  const alternatives = (schema.anyOf ?? schema.oneOf ?? [schema]) as SchemaObject[];
  const types = new Set<string>();
  for (const alternative of alternatives) {
    const stated = alternative.type;
    if (stated === undefined) return null;
    for (const type of Array.isArray(stated) ? stated : [stated]) {
      if (type !== "null") types.add(type === "integer" ? "number" : String(type));
    }
  }
  return types.size ? [...types].sort() : null;
}
