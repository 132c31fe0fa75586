import type { z } from "zod";
import type { ConvertedSchema, SchemaIO, SchemaObject } from "./schema-object";
import {
  type ColumnKind,
  type FieldKind,
  type FileConstraints,
  type JsonParts,
  OWN_SEAM,
  type SchemaSeam,
  type SchemaTarget,
  type UnwrapSide,
} from "./seam";
import { MEMBER, type StandardMember } from "./standard/json-view";
import { checkThroughParent, type MemberEntry, type MemberVerdicts } from "./standard/member";
import type { StandardIssue, StandardJsonSchema, StandardResult } from "./standard/spec";

/*
 * Schemas specroute builds from other schemas, whatever library those come from: the auto endpoints'
 * bodies, queries and envelopes over a valibot or ArkType model. zod builds its own (z.object, .omit,
 * .partial); a Standard Schema has no such operations, so these compose its members (and zod's, side by
 * side) into a schema that validates through each member's `~standard.validate` and documents itself from
 * each member's JSON Schema. Every operation here is a plain value built once, at registration.
 */

type Schema = z.ZodType;

type Node =
  | { kind: "object"; members: Readonly<Record<string, Schema>> }
  | { kind: "array"; item: Schema; min?: Limit; max?: Limit }
  /** An array goes to `array`, anything else to `object` (a bulk create's body). */
  | { kind: "either"; object: Schema; array: Schema }
  /** `inner`, perhaps left out (`optional`), with notes for its documentation. */
  | { kind: "wrap"; inner: Schema; optional: boolean }
  /** An object valid for `whole` (its output the output) and, beside it, for each of `extra`'s members. */
  | { kind: "alongside"; whole: Schema; extra: Readonly<Record<string, Schema>> };

export interface Limit {
  readonly count: number;
  readonly message: string;
}

export interface Notes {
  readonly description?: string;
  readonly param?: Readonly<Record<string, unknown>>;
}

const COMPOSED: unique symbol = Symbol("specroute.composed");

interface Composed extends StandardJsonSchema {
  readonly [COMPOSED]: Inside;
  /** The seam's dispatch finds `composedSeam` here, so only an app that composes schemas bundles it. */
  readonly [OWN_SEAM]: SchemaSeam<Schema>;
}

interface Inside {
  readonly node: Node;
  readonly notes: Notes;
  /** What answers for the members (zod, Standard or composed): the seam's dispatch. */
  readonly members: SchemaSeam<Schema>;
}

/**
 * The members of `headers` that none of `declared` names, in any case (header names are compared so): the
 * derived headers an app's own header schema leaves to specroute.
 *
 * @example
 * headersNotIn({ "If-Match": tag }, ["if-match"]) // {}
 */
export function headersNotIn<T>(headers: Record<string, T>, declared: readonly string[]): Record<string, T> {
  const names = new Set(declared.map((name) => name.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}

export function isComposed(value: unknown): value is Composed {
  return typeof value === "object" && value !== null && COMPOSED in value;
}

function compose(members: SchemaSeam<Schema>, node: Node, notes: Notes = {}): Schema {
  const self: Composed = Object.freeze({
    [COMPOSED]: Object.freeze({ node, notes, members }),
    [OWN_SEAM]: composedSeam,
    "~standard": Object.freeze({
      version: 1 as const,
      vendor: "specroute",
      validate: (value: unknown) => validate(self, value),
      jsonSchema: Object.freeze({
        input: () => standalone(self, "input"),
        output: () => standalone(self, "output"),
      }),
    }),
  });
  return self as unknown as Schema;
}

/**
 * Builders of composed schemas; `seam` answers for the members.
 *
 * @example
 * composer(seam).object({ success: z.literal(true), result: arktypeTask })
 */
export function composer(seam: SchemaSeam<Schema>) {
  return {
    /** An object of `members` (unknown keys are dropped, as zod's objects do). */
    object: (members: Record<string, Schema>) =>
      compose(seam, { kind: "object", members: Object.freeze({ ...members }) }),
    /** An array of `item`, with optional bounds worded for the 400. */
    array: (item: Schema, limits: { min?: Limit; max?: Limit } = {}) =>
      compose(seam, { kind: "array", item, ...limits }),
    /** An array goes to `array`, anything else to `object`. */
    either: (object: Schema, array: Schema) => compose(seam, { kind: "either", object, array }),
    /**
     * `whole` as it validates and documents itself, with `extra`'s members checked from the same object
     * beside it: the headers an auto endpoint derives next to a header schema it cannot extend (a valibot
     * object, a transformed or refined zod object). `whole` sees none of `extra`'s keys (a closed object
     * would refuse them), and its output is the output, as it gives it. A member `whole` declares, in any
     * case (header names are), is its own.
     */
    alongside(whole: Schema, extra: Record<string, Schema>): Schema {
      const added = headersNotIn(extra, Object.keys(seam.objectShape(whole) ?? {}));
      return compose(seam, { kind: "alongside", whole, extra: Object.freeze(added) });
    },
    /** `inner`, which an object may leave out. */
    optional: (inner: Schema) => compose(seam, { kind: "wrap", inner, optional: true }),
    /** `inner` with a description and/or `param` metadata for its documentation. */
    noted(inner: Schema, notes: Notes): Schema {
      if (!isComposed(inner)) return compose(seam, { kind: "wrap", inner, optional: false }, notes);
      const own = inner[COMPOSED];
      return compose(seam, own.node, { ...own.notes, ...notes });
    },
  };
}

function nodeOf(schema: Schema): Inside {
  return (schema as unknown as Composed)[COMPOSED];
}

// ——— validation ———

type Outcome = { ok: true; value: unknown } | { ok: false; issues: StandardIssue[] };

function validate(self: Composed, value: unknown): StandardResult<unknown> | Promise<StandardResult<unknown>> {
  const outcome = check(self as unknown as Schema, value);
  return outcome instanceof Promise ? outcome.then(resultOf) : resultOf(outcome);
}

function resultOf(outcome: Outcome): StandardResult<unknown> {
  return outcome.ok ? { value: outcome.value } : { issues: outcome.issues };
}

function check(schema: Schema, value: unknown): Outcome | Promise<Outcome> {
  if (!isComposed(schema))
    return then(schema["~standard"].validate(value), (r) => (r.issues ? fail(r.issues) : pass(r.value)));
  const { node } = nodeOf(schema);
  switch (node.kind) {
    case "wrap":
      return node.optional && value === undefined ? pass(undefined) : check(node.inner, value);
    case "either":
      return check(Array.isArray(value) ? node.array : node.object, value);
    case "array":
      return checkArray(node, value);
    case "object":
      return checkObject(node.members, value);
    case "alongside":
      return checkAlongside(node, value);
  }
}

function checkAlongside(node: Extract<Node, { kind: "alongside" }>, value: unknown): Outcome | Promise<Outcome> {
  const own = typeof value === "object" && value !== null ? withoutKeys(value, node.extra) : value;
  return all([checkObject(node.extra, value), check(node.whole, own)], ([extra, whole]) => {
    if (extra!.ok) return whole!;
    return fail([...extra!.issues, ...(whole!.ok ? [] : whole!.issues)]);
  });
}

/** `value` without `keys`' own keys. */
function withoutKeys(value: object, keys: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (!Object.hasOwn(keys, key)) rest[key] = member;
  return rest;
}

function checkArray(node: Extract<Node, { kind: "array" }>, value: unknown): Outcome | Promise<Outcome> {
  if (!Array.isArray(value)) return fail([{ message: "Expected an array", path: [] }]);
  if (node.min && value.length < node.min.count) return fail([{ message: node.min.message, path: [] }]);
  if (node.max && value.length > node.max.count) return fail([{ message: node.max.message, path: [] }]);
  return all(
    value.map((item) => check(node.item, item)),
    (outcomes) => {
      const issues = outcomes.flatMap((o, index) => (o.ok ? [] : o.issues.map((i) => under(index, i))));
      return issues.length ? fail(issues) : pass(outcomes.map((o) => (o as { value: unknown }).value));
    },
  );
}

/**
 * How an object's members are checked, worked out once per composed object: each member on its own, but
 * the members of one library object (Standard members) together, so a request costs one validation of
 * their parent rather than one per member.
 */
interface ObjectPlan {
  readonly own: ReadonlyArray<{ name: string; schema: Schema; optional: boolean }>;
  readonly batches: ReadonlyArray<{
    parent: StandardJsonSchema;
    members: ReadonlyArray<{ name: string; key: string; optional: boolean; view: StandardMember[typeof MEMBER] }>;
  }>;
}

const objectPlans = new WeakMap<Readonly<Record<string, Schema>>, ObjectPlan>();

function objectPlan(members: Readonly<Record<string, Schema>>): ObjectPlan {
  let plan = objectPlans.get(members);
  if (plan) return plan;
  const own: Array<ObjectPlan["own"][number]> = [];
  const batches = new Map<StandardJsonSchema, Array<ObjectPlan["batches"][number]["members"][number]>>();
  for (const [name, schema] of Object.entries(members)) {
    const { target, optional } = peel(schema);
    const view = isStandardMember(target) ? target[MEMBER] : undefined;
    const source = view?.source;
    const batch = source ? (batches.get(source.parent) ?? []) : undefined;
    // A second member over the same key of one parent (two filters on one field) is checked on its own.
    if (view && source && batch && !batch.some((member) => member.key === source.key)) {
      batch.push({ name, key: source.key, optional, view });
      batches.set(source.parent, batch);
    } else {
      own.push({ name, schema, optional });
    }
  }
  plan = { own, batches: [...batches].map(([parent, list]) => ({ parent, members: list })) };
  objectPlans.set(members, plan);
  return plan;
}

function checkObject(members: Readonly<Record<string, Schema>>, value: unknown): Outcome | Promise<Outcome> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail([{ message: "Expected an object", path: [] }]);
  }
  const input = value as Record<string, unknown>;
  const sent = (name: string) => Object.hasOwn(input, name) && input[name] !== undefined;
  const plan = objectPlan(members);
  const own = plan.own.filter(({ name, optional }) => !optional || sent(name));
  const checks = own.map(({ name, schema }) => check(schema, input[name]));
  const batched = plan.batches.map(({ parent, members: list }) => {
    const names = new Map<string, string>();
    const entries: MemberEntry[] = [];
    for (const { name, key, optional, view } of list) {
      const present = sent(name);
      if (!present && optional) continue;
      names.set(key, name);
      entries.push({ key, value: input[name], present, view });
    }
    return then(checkThroughParent(parent, entries), (verdicts) => ({ verdicts, names }));
  });
  return all(checks, (outcomes) =>
    all(batched, (settled) => {
      const output: Record<string, unknown> = {};
      const issues: StandardIssue[] = [];
      outcomes.forEach((outcome, index) => {
        const name = own[index]!.name;
        if (!outcome.ok) issues.push(...outcome.issues.map((i) => under(name, i)));
        else if (outcome.value !== undefined) output[name] = outcome.value;
      });
      for (const { verdicts, names } of settled) collect(verdicts, names, output, issues);
      return issues.length ? fail(issues) : pass(orderedLike(members, output));
    }),
  );
}

function collect(
  verdicts: MemberVerdicts,
  names: Map<string, string>,
  output: Record<string, unknown>,
  issues: StandardIssue[],
) {
  for (const [key, verdict] of verdicts.byKey) {
    const name = names.get(key)!;
    if ("issues" in verdict) issues.push(...verdict.issues.map((i) => under(name, i)));
    else if (verdict.present) output[name] = verdict.value;
  }
}

/** `output`'s keys in the members' order, as a library's object would give them. */
function orderedLike(members: Readonly<Record<string, Schema>>, output: Record<string, unknown>) {
  const ordered: Record<string, unknown> = {};
  for (const name of Object.keys(members)) if (Object.hasOwn(output, name)) ordered[name] = output[name];
  return ordered;
}

/** The schema under notes and an optional wrapper, and whether it may be left out. */
function peel(schema: Schema): { target: Schema; optional: boolean } {
  let target = schema;
  let optional = false;
  while (isComposed(target) && nodeOf(target).node.kind === "wrap") {
    const node = nodeOf(target).node as Extract<Node, { kind: "wrap" }>;
    optional ||= node.optional;
    target = node.inner;
  }
  return { target, optional };
}

function isStandardMember(schema: unknown): schema is StandardMember {
  return typeof schema === "object" && schema !== null && MEMBER in schema;
}

function under(key: string | number, issue: StandardIssue): StandardIssue {
  return { message: issue.message, path: [key, ...(issue.path ?? [])] };
}

const pass = (value: unknown): Outcome => ({ ok: true, value });
const fail = (issues: readonly StandardIssue[]): Outcome => ({ ok: false, issues: [...issues] });

/** `f` of a value that may be a promise, staying synchronous when it is not. */
function then<T, U>(value: T | Promise<T>, f: (settled: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

function all<T, U>(values: Array<T | Promise<T>>, f: (settled: T[]) => U | Promise<U>): U | Promise<U> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values).then(f) : f(values as T[]);
}

// ——— what the seam answers ———

function toJsonSchema(schema: Schema, target: SchemaTarget, io: SchemaIO): ConvertedSchema {
  let byKey = converted.get(schema);
  if (!byKey) {
    byKey = new Map();
    converted.set(schema, byKey);
  }
  const key = `${target}:${io}`;
  let result = byKey.get(key);
  if (!result) {
    result = deepFreeze(describe(schema, target, io));
    byKey.set(key, result);
  }
  return result;
}

const converted = new WeakMap<Schema, Map<string, ConvertedSchema>>();

function describe(schema: Schema, target: SchemaTarget, io: SchemaIO): ConvertedSchema {
  const { node, notes, members: memberSeam } = nodeOf(schema);
  const components: Record<string, SchemaObject> = {};
  const of = (member: Schema): SchemaObject => {
    const converted = memberSeam.toJsonSchema(member, target, io);
    Object.assign(components, converted.components);
    return converted.schema;
  };
  let described: SchemaObject;
  switch (node.kind) {
    case "wrap":
      described = { ...of(node.inner) };
      break;
    case "either":
      described = { oneOf: [of(node.object), of(node.array)] };
      break;
    case "array":
      described = {
        type: "array",
        items: of(node.item),
        ...(node.min ? { minItems: node.min.count } : {}),
        ...(node.max ? { maxItems: node.max.count } : {}),
      };
      break;
    case "object": {
      const properties: Record<string, SchemaObject> = {};
      const required: string[] = [];
      for (const [name, member] of Object.entries(node.members)) {
        properties[name] = of(member);
        const optional = io === "input" ? memberSeam.acceptsUndefined(member) : memberSeam.mayOutputUndefined(member);
        if (!optional) required.push(name);
      }
      described = { type: "object", properties, ...(required.length ? { required } : {}) };
      break;
    }
    case "alongside":
      described = { allOf: [of(compose(memberSeam, { kind: "object", members: node.extra })), of(node.whole)] };
      break;
  }
  if (notes.description !== undefined) described.description = notes.description;
  return { schema: described, components };
}

/** The composed schema's own Standard JSON Schema (2020-12), its components as `$defs`. */
function standalone(self: Composed, io: SchemaIO): Record<string, unknown> {
  const { schema, components } = toJsonSchema(self as unknown as Schema, "3.1", io);
  const text = JSON.stringify(Object.keys(components).length ? { ...schema, $defs: components } : schema);
  return JSON.parse(text.replaceAll('"#/components/schemas/', '"#/$defs/'));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** Answers about a wrapper come from what it wraps; `inner` of anything else is null. */
function innerOf(schema: Schema): Extract<Node, { kind: "wrap" }> | null {
  const { node } = nodeOf(schema);
  return node.kind === "wrap" ? node : null;
}

/** The seam for composed schemas: answers from the node, and from its members through their own seam. */
export const composedSeam: SchemaSeam<Schema> = {
  name: "composed",
  isSchema: (value: unknown): value is Schema => isComposed(value),
  unwrap(schema: Schema, side: UnwrapSide) {
    const wrap = innerOf(schema);
    return wrap ? nodeOf(schema).members.unwrap(wrap.inner, side) : schema;
  },
  objectShape(schema) {
    const { node } = nodeOf(schema);
    if (node.kind === "object") return { ...node.members };
    if (node.kind === "alongside") return { ...node.extra, ...nodeOf(schema).members.objectShape(node.whole) };
    return node.kind === "wrap" ? nodeOf(schema).members.objectShape(node.inner) : null;
  },
  // A composed object is not a model: the auto endpoints never store one, and claim nothing of it.
  validatesMemberwise: () => false,
  acceptsUndefined(schema) {
    const wrap = innerOf(schema);
    return !!wrap && (wrap.optional || nodeOf(schema).members.acceptsUndefined(wrap.inner));
  },
  mayOutputUndefined(schema) {
    const wrap = innerOf(schema);
    return !!wrap && (wrap.optional || nodeOf(schema).members.mayOutputUndefined(wrap.inner));
  },
  mayBeNull(schema) {
    const wrap = innerOf(schema);
    return !!wrap && (wrap.optional || nodeOf(schema).members.mayBeNull(wrap.inner));
  },
  fieldKind(schema): FieldKind {
    const { node } = nodeOf(schema);
    if (node.kind === "wrap") return nodeOf(schema).members.fieldKind(node.inner);
    if (node.kind === "array") return { scalar: nodeOf(schema).members.fieldKind(node.item).scalar, array: true };
    return { scalar: "string", array: false };
  },
  jsonParts(schema): JsonParts<Schema> | null {
    const { node, members } = nodeOf(schema);
    switch (node.kind) {
      case "wrap":
        return members.jsonParts(node.inner);
      case "object":
        return { kind: "object", members: node.members, rest: null };
      case "alongside":
        return { kind: "object", members: { ...node.extra, ...members.objectShape(node.whole) }, rest: null };
      case "array":
        return { kind: "array", prefix: [], rest: node.item };
      case "either":
        return { kind: "union", options: [node.object, node.array] };
      default:
        return null;
    }
  },
  fileConstraints(schema): FileConstraints | null {
    const { node } = nodeOf(schema);
    if (node.kind === "wrap") return nodeOf(schema).members.fileConstraints(node.inner);
    return node.kind === "array" ? nodeOf(schema).members.fileConstraints(node.item) : null;
  },
  columnKind(schema): ColumnKind {
    const wrap = innerOf(schema);
    return wrap ? nodeOf(schema).members.columnKind(wrap.inner) : "json";
  },
  isOrderable(schema) {
    const wrap = innerOf(schema);
    return !!wrap && nodeOf(schema).members.isOrderable(wrap.inner);
  },
  parameterMetadata(schema) {
    const { node, notes } = nodeOf(schema);
    const inner = node.kind === "wrap" ? nodeOf(schema).members.parameterMetadata(node.inner) : {};
    return { ...inner, ...notes.param };
  },
  withoutDefault(schema) {
    const { node, notes } = nodeOf(schema);
    if (node.kind !== "wrap") return schema;
    const { members } = nodeOf(schema);
    return compose(members, { ...node, inner: members.withoutDefault(node.inner) }, notes);
  },
  toJsonSchema,
  isAsyncParseError: () => false,
};
