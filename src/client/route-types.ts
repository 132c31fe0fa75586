// Type-level only: what the typed clients know of a registered route, derived from its endpoint class.
// Nothing here exists at run time, and nothing is computed at registration: a route's types are worked
// out only when a client call (or Hono's `hc`) looks that route up.
import type { ErrorItem } from "../errors/exceptions";
import type { ErrorFormat } from "../errors/render";
import type { OutputSchemaLike, SchemaInput, SchemaOutput, SchemaPart, StandardSchemaLike } from "../schema/types";

/** 2xx statuses (Hono's `SuccessStatusCode`). */
export type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226;

/** 4xx and 5xx statuses (Hono's `ClientErrorStatusCode | ServerErrorStatusCode`). */
export type ErrorStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 407
  | 408
  | 409
  | 410
  | 411
  | 412
  | 413
  | 414
  | 415
  | 416
  | 417
  | 418
  | 421
  | 422
  | 423
  | 424
  | 425
  | 426
  | 428
  | 429
  | 431
  | 451
  | 500
  | 501
  | 502
  | 503
  | 504
  | 505
  | 506
  | 507
  | 508
  | 510
  | 511;

/**
 * The body of an error answer in the `envelope` error format (the default).
 *
 * @example
 * const first: string = (error as ErrorEnvelope).errors[0].message;
 */
export interface ErrorEnvelope {
  success: false;
  errors: ErrorItem[];
  result: Record<string, never>;
}

/**
 * The body of an error answer in the `problem` error format (RFC 9457 problem details).
 *
 * @example
 * const why: string = (error as ProblemDetails).detail;
 */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors: ErrorItem[];
}

/**
 * The error body a router answers with in error format `F`.
 *
 * @example
 * type Problem = ErrorBody<"problem">; // ProblemDetails
 */
export type ErrorBody<F extends ErrorFormat = "envelope"> = F extends "problem" ? ProblemDetails : ErrorEnvelope;

/**
 * One answer of a route as the route map records it: Hono's `Endpoint` shape (so `hc` reads it), plus
 * what specroute's own client reads: the endpoint, method and error format it was registered with.
 */
export interface RouteAnswer {
  input: any;
  output: any;
  outputFormat: string;
  status: number;
  "~endpoint"?: [endpoint: unknown, method: string, errorFormat: ErrorFormat];
}

/**
 * The routes a router registered: `{ [path]: { [$method]: answers } }`, Hono's route schema shape.
 * A flat map: a client call looks its route up by path and method, whatever the registration chain.
 */
export type RouteMap = { [path: string]: { [method: `$${string}`]: RouteAnswer } };

/** Joins a prefix and a path as Hono's `MergePath` does, so both name a route alike. */
export type JoinPath<A extends string, B extends string> = B extends ""
  ? JoinPath<A, "/">
  : A extends "" | "/"
    ? B
    : A extends `${infer Head}/`
      ? B extends `/${infer Tail}`
        ? `${Head}/${Tail}`
        : `${Head}/${B}`
      : B extends `/${infer Tail}`
        ? Tail extends ""
          ? A
          : `${A}/${Tail}`
        : `${A}/${B}`;

type ParamName<Segment extends string> = Segment extends `:${infer Name}`
  ? Name extends `${infer Bare}{${string}`
    ? Bare
    : Name extends `${infer Bare}?`
      ? Bare
      : Name
  : never;

/**
 * The `:name` parameters of a router path.
 *
 * @example
 * type Keys = PathParamNames<"/projects/:projectId/tasks/:id{[0-9]+}">; // "projectId" | "id"
 */
export type PathParamNames<P extends string> = P extends `${infer Head}/${infer Rest}`
  ? ParamName<Head> | PathParamNames<Rest>
  : ParamName<P>;

/** `S` with the endpoint class that ends `handlers` registered as `method path` (unchanged for plain handlers). */
export type WithRoute<
  S,
  M extends string,
  P extends string,
  H extends readonly unknown[],
  F extends ErrorFormat,
> = H extends readonly [...unknown[], abstract new (...args: any) => infer I]
  ? I extends { handle: unknown }
    ? S & { [K in P]: { [K2 in `$${M}`]: RouteAnswers<I, K, M, F> } }
    : S
  : S;

/**
 * The routes of a nested router mounted under `prefix`: paths joined, and each route's types derived
 * again for its full path (its path parameters now include the prefix's).
 */
export type Mounted<S, Prefix extends string> = {
  [K in keyof S & string as JoinPath<Prefix, K>]: { [M in keyof S[K]]: Remounted<S[K][M], JoinPath<Prefix, K>> };
};

type Remounted<A, P extends string> = [A] extends [
  { "~endpoint"?: [infer I, infer M extends string, infer F extends ErrorFormat] },
]
  ? RouteAnswers<I, P, M, F>
  : A;

/** One answer: its status, body type and Hono's name for the body's format. */
interface Answer {
  status: number;
  output: unknown;
  format: string;
}

/** The answers of endpoint `I` registered as `method path`, one member per status, as `hc` reads them. */
export type RouteAnswers<I, P extends string, M extends string, F extends ErrorFormat> =
  AnswersOf<I, F> extends infer A
    ? A extends Answer
      ? {
          input: HonoInput<RequestParts<I, P, M>>;
          output: A["output"];
          outputFormat: A["format"];
          status: A["status"];
          "~endpoint"?: [I, M, F];
        }
      : never
    : never;

// ---------------------------------------------------------------------------------------------------
// Requests: each part as the caller writes it (zod input types: defaults make members optional).

/** An endpoint's request parts, each the input type of its schema, `undefined` when not declared. */
export interface RequestPartsShape {
  param: object;
  query: object | undefined;
  header: object | undefined;
  cookie: object | undefined;
  /** The body and how it is sent; `undefined` when none is declared. */
  body: { kind: "json" | "form" | "multipart"; value: unknown; required: boolean } | undefined;
}

type In<T> = SchemaInput<T, undefined>;

type RequestOf<S> = S extends { request?: infer R } ? NonNullable<R> : {};

type Part<R, K extends string> = R extends { [P in K]?: infer T } ? In<T> : undefined;

type BodyOf<R> = R extends { body?: infer B }
  ? B extends { content: infer C }
    ? MediaBody<C, B extends { required: false } ? false : true>
    : undefined
  : undefined;

type MediaBody<C, Required extends boolean> = BodyPart<
  "application/json" extends keyof C
    ? { kind: "json"; schema: SchemaAt<C, "application/json"> }
    : "multipart/form-data" extends keyof C
      ? { kind: "multipart"; schema: SchemaAt<C, "multipart/form-data"> }
      : "application/x-www-form-urlencoded" extends keyof C
        ? { kind: "form"; schema: SchemaAt<C, "application/x-www-form-urlencoded"> }
        : undefined,
  Required
>;

// A schema slot is typed `Z | PlainSchemaObject` (core/schema-types.ts, which the client layer does not
// import): its zod member decides the types when it has one.
type ZodPart<T> = SchemaPart<T>;

type SchemaAt<C, K extends keyof C> = C[K] extends { schema: infer T } ? ZodPart<T> : never;

type BodyPart<Media, Required extends boolean> = Media extends { kind: infer Kind; schema: infer T }
  ? {
      kind: Kind & ("json" | "form" | "multipart");
      value: In<T>;
      required: Required extends false ? false : undefined extends In<T> ? false : true;
    }
  : undefined;

/** The declared (or derived, for an auto endpoint) request parts of endpoint `I` at `path`. */
export type RequestParts<I, P extends string, M extends string> = I extends { "~crud": infer Kind; _meta: infer Meta }
  ? CrudRequest<Kind, Meta, RequestOf<SchemaField<I>>, P, M, I>
  : PlainRequest<RequestOf<SchemaField<I>>, P>;

type SchemaField<I> = I extends { schema: infer S } ? S : {};

type PlainRequest<R, P extends string> = {
  param: ParamsFor<P, Part<R, "params">, {}>;
  query: Part<R, "query">;
  header: Part<R, "headers">;
  cookie: Part<R, "cookies">;
  body: BodyOf<R>;
};

/** Every path parameter: its declared type, else the model column's (auto endpoints), else a string. */
type ParamsFor<P extends string, Declared, Columns> = {
  [K in PathParamNames<P>]: K extends keyof Declared
    ? Declared[K]
    : K extends keyof Columns
      ? Exclude<Columns[K], null | undefined>
      : string;
};

// ---------------------------------------------------------------------------------------------------
// Auto endpoints (Create/Read/Update/Delete/List): the request and answers their Meta derives.

type ModelSchemaOf<Meta> = Meta extends { model: { schema: infer T } } ? T : never;
type FieldsOf<Meta> = Meta extends { fields: infer T extends ModelSchemaLike } ? T : ModelSchemaOf<Meta>;
type InputOf<T> = SchemaInput<T, {}>;
/** Every column's input type: the model's schema with `fields` laid over it. */
type ColumnsOf<Meta> = Omit<InputOf<ModelSchemaOf<Meta>>, keyof InputOf<FieldsOf<Meta>>> & InputOf<FieldsOf<Meta>>;
type SerializedOf<Meta> = Meta extends { model: { serializerSchema: infer T extends ModelSchemaLike } }
  ? Out<T>
  : Out<ModelSchemaOf<Meta>>;

type PathKeysOf<P extends string, Columns> = PathParamNames<P> & keyof Columns;

type Without<T, K> = { [Key in keyof T as Key extends K ? never : Key]: T[Key] };
type Optional<T> = { [Key in keyof T]?: T[Key] };

type CrudRequest<Kind, Meta, User, P extends string, M extends string, I> = {
  param: ParamsFor<P, Part<User, "params">, ColumnsOf<Meta>>;
  query: User extends { query: unknown }
    ? Part<User, "query">
    : Kind extends "list"
      ? ListQuery<I, Meta>
      : Kind extends "changes"
        ? Simplify<FilterQuery<I, ColumnsOf<Meta>>>
        : undefined;
  header: User extends { headers: unknown }
    ? Part<User, "headers">
    : Kind extends "changes"
      ? { "Last-Event-ID"?: string }
      : Part<User, "headers">;
  cookie: Part<User, "cookies">;
  body: User extends { body: unknown }
    ? BodyOf<User>
    : Kind extends "create"
      ? JsonBody<OneOrBulk<I, Without<InputOf<FieldsOf<Meta>>, PathKeysOf<P, ColumnsOf<Meta>>>>>
      : Kind extends "update"
        ? JsonBody<
            M extends "patch"
              ? Optional<Without<InputOf<FieldsOf<Meta>>, PathKeysOf<P, ColumnsOf<Meta>>>>
              : Without<InputOf<FieldsOf<Meta>>, PathKeysOf<P, ColumnsOf<Meta>>>
          >
        : undefined;
};

type JsonBody<T> = { kind: "json"; value: T; required: true };

/** One object, or (`bulk = true as const`) also an array of them. */
type OneOrBulk<I, T> = [PropOf<I, "bulk">] extends [true] ? T | T[] : T;

/** Which pagination a list offers, when declared as a literal (`pagination = "cursor" as const`). */
type PaginationOf<I> = [PropOf<I, "pagination">] extends ["cursor"]
  ? "cursor"
  : [PropOf<I, "pagination">] extends ["both"]
    ? "both"
    : "page";

/** A name option of a list endpoint: its literal type when declared as one, else the default name. */
type NameOf<T, Default extends string> = T extends string ? (string extends T ? Default : T) : Default;

type Listed<T> = T extends readonly (infer E)[] ? E : never;

/** Fields named in an option: its literal members when declared with them, else every column. */
type FieldsIn<T, Columns> = string extends Listed<T> ? keyof Columns & string : Listed<T> & keyof Columns & string;

type ListQuery<I, Meta, Columns = ColumnsOf<Meta>> = Simplify<
  {
    [K in
      | (PaginationOf<I> extends "cursor" ? never : NameOf<PropOf<I, "pageFieldName">, "page">)
      | NameOf<PropOf<I, "perPageFieldName">, "per_page">]?: number;
  } & {
    [K in PaginationOf<I> extends "page" ? never : NameOf<PropOf<I, "cursorFieldName">, "cursor">]?: string;
  } & FilterQuery<I, Columns> & {
      [K in NameOf<PropOf<I, "searchFieldName">, "search">]?: string;
    } & {
      [K in NameOf<PropOf<I, "orderByFieldName">, "order_by">]?: FieldsIn<PropOf<I, "orderByFields">, Columns>;
    } & { [K in NameOf<PropOf<I, "orderByDirectionFieldName">, "order_by_direction">]?: "asc" | "desc" }
>;

/** The filter parameters of a list or a changes feed: `filterFields` exact, `filterOperators` as `field__op`. */
type FilterQuery<I, Columns> = {
  [K in FieldsIn<PropOf<I, "filterFields">, Columns>]?: Exclude<Columns[K], null | undefined>;
} & OperatorQuery<PropOf<I, "filterOperators">, Columns>;

type PropOf<I, K extends string> = I extends { [P in K]: infer T } ? T : undefined;

type OperatorKeys<Ops> = {
  [F in keyof Ops & string]: `${F}__${Listed<Ops[F]> & string}`;
}[keyof Ops & string];

type OperatorQuery<Ops, Columns> = string extends keyof Ops ? {} : OperatorMembers<Ops, Columns>;

type OperatorMembers<Ops, Columns> = {
  [K in OperatorKeys<Ops>]?: K extends `${string}__isnull`
    ? boolean
    : K extends `${infer F}__in`
      ? Exclude<ColumnAt<Columns, F>, null | undefined>[]
      : K extends `${infer F}__${string}`
        ? Exclude<ColumnAt<Columns, F>, null | undefined>
        : never;
};

type ColumnAt<Columns, F extends string> = F extends keyof Columns ? Columns[F] : unknown;

// ---------------------------------------------------------------------------------------------------
// Answers: declared responses per status, else what `handle` returns; errors in the format in force.

type AnswersOf<I, F extends ErrorFormat> =
  SuccessAnswers<I> extends infer Success extends Answer ? Success | DeclaredErrors<I, F> | OtherErrors<I, F> : never;

type ResponsesOf<I> = SchemaField<I> extends { responses: infer Rs } ? Rs : {};

/** The literal statuses a `responses` object declares, with their answers. */
type Declared<Rs> = {
  [K in keyof Rs]: K extends `${infer N extends number}` ? DeclaredAnswer<N, Rs[K]> : never;
}[keyof Rs];

type DeclaredAnswer<N extends number, Config> = Config extends { content: infer C }
  ? StreamMediaKey<C> extends infer K extends keyof C
    ? [K] extends [never]
      ? JsonMediaKey<C> extends infer J extends keyof C
        ? [J] extends [never]
          ? { status: N; output: string; format: "text" }
          : { status: N; output: C[J] extends { schema: infer T } ? Out<ZodPart<T>> : unknown; format: "json" }
        : never
      : {
          status: N;
          output: ItemStream<C[K] extends { itemSchema: infer T } ? Out<ZodPart<T>> : unknown>;
          format: "stream";
        }
    : never
  : { status: N; output: null; format: "body" };

/** The media types a client reads as a stream of items (declared with an `itemSchema`). */
type StreamMediaKey<C> = {
  [K in keyof C]: C[K] extends { itemSchema: unknown } ? K : never;
}[keyof C];

type Out<T> = SchemaOutput<T, unknown>;

/** Any zod schema, by the member every one has. */
type ZodLike = OutputSchemaLike;

/** A schema a Meta's `fields` or `serializerSchema` may be: zod's, or another library's through Standard Schema. */
type ModelSchemaLike = ZodLike | StandardSchemaLike;

type JsonMediaKey<C> = keyof C & `${string}json${string}`;

type SuccessOf<A> = A extends { status: SuccessStatus | 300 | 301 | 302 | 303 | 304 | 307 | 308 } ? A : never;

type SuccessAnswers<I> = I extends { "~crud": infer Kind; _meta: infer Meta }
  ? UserOverCrud<SuccessOf<Declared<ResponsesOf<I>>>, CrudAnswer<Kind, Meta, I>>
  : [SuccessOf<Declared<ResponsesOf<I>>>] extends [never]
    ? HandleAnswer<I extends { handle: (...args: any) => infer R } ? Awaited<R> : unknown>
    : SuccessOf<Declared<ResponsesOf<I>>>;

type UserOverCrud<User extends Answer, Derived extends Answer> =
  | User
  | (Derived extends { status: User["status"] } ? never : Derived);

/**
 * A streamed answer's items as they arrive. `lastEventId` is the last Server-Sent Events `id` the
 * stream sent, kept as an EventSource keeps it (a changes stream sends its place before its first event
 * and with each heartbeat): send it back as `Last-Event-ID` to go on where the stream was. Always
 * undefined in JSON Lines.
 */
export interface ItemStream<T> extends AsyncIterableIterator<T> {
  readonly lastEventId: string | undefined;
}

/** The events of a changes feed, told apart by `event`. */
export type ChangeEventOf<Meta> =
  | {
      event: "created" | "updated" | "deleted";
      id: string;
      data: { object: SerializedOf<Meta>; etag?: string };
    }
  | { event: "reset"; id?: undefined; data: { message: string } }
  /** The last event of a stream: reconnect with its `id` as `Last-Event-ID`. */
  | { event: "lagged" | "reconnect"; id: string; data: { message: string } }
  | { event: "error"; id?: undefined; data: ErrorEnvelope };

type CrudAnswer<Kind, Meta, I> = Kind extends "changes"
  ? { status: 200; output: ItemStream<ChangeEventOf<Meta>>; format: "stream" }
  : Kind extends "list"
    ? {
        status: 200;
        output: { success: true; result: SerializedOf<Meta>[]; result_info: ListInfo<PaginationOf<I>> };
        format: "json";
      }
    : {
        status: Kind extends "create" ? 201 : 200;
        output: {
          success: true;
          result: Kind extends "create" ? OneOrBulk<I, SerializedOf<Meta>> : SerializedOf<Meta>;
        };
        format: "json";
      };

type Cursors = { next_cursor: string | null; prev_cursor: string | null };

/** `result_info` as each pagination sends it (a page number only on numbered requests). */
type ListInfo<Pagination> = Pagination extends "cursor"
  ? Simplify<{ count: number; per_page: number; total_count?: number } & Cursors>
  : Pagination extends "both"
    ? Simplify<{ count: number; page?: number; per_page: number; total_count?: number } & Cursors>
    : { count: number; page: number; per_page: number; total_count?: number };

/** What a `handle` without declared responses answers, from its return type. */
type HandleAnswer<R> = R extends { _data: infer D; _status: infer N extends number; _format: infer Fmt extends string }
  ? { status: N; output: D; format: Fmt }
  : R extends Response
    ? { status: SuccessStatus; output: unknown; format: string }
    : R extends string
      ? { status: 200; output: R; format: "text" }
      : R extends void
        ? { status: 204; output: null; format: "body" }
        : { status: 200; output: R; format: "json" };

type ErrorOf<A> = A extends { status: ErrorStatus } ? A : never;

/** Declared error statuses with a body schema of their own; the error format's body otherwise. */
type DeclaredErrors<I, F extends ErrorFormat> =
  ErrorOf<Declared<ResponsesOf<I>>> extends infer A
    ? A extends Answer
      ? unknown extends A["output"]
        ? { status: A["status"]; output: ErrorBody<F>; format: "json" }
        : A
      : never
    : never;

/** Every other error status: the body of the error format in force. */
type OtherErrors<I, F extends ErrorFormat> = {
  status: Exclude<ErrorStatus, ErrorOf<Declared<ResponsesOf<I>>>["status"]>;
  output: ErrorBody<F>;
  format: "json";
};

// ---------------------------------------------------------------------------------------------------
// Inputs as each client takes them.

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** `{ [name]: value }` when the part is declared: optional when none of its members is required. */
type Group<Name extends string, T> = [T] extends [undefined]
  ? {}
  : [RequiredKeys<T>] extends [never]
    ? { [K in Name]?: T }
    : { [K in Name]: T };

type BodyGroup<B, Names extends Record<"json" | "form" | "multipart", string>> = B extends {
  kind: infer Kind extends "json" | "form" | "multipart";
  value: infer V;
  required: infer Required;
}
  ? Required extends true
    ? { [K in Names[Kind]]: V }
    : { [K in Names[Kind]]?: V }
  : {};

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A value Hono expects as a string (path, query and header values). */
type AsString<T> = unknown extends T
  ? string
  : T extends string
    ? T
    : T extends readonly unknown[]
      ? string[]
      : T extends undefined
        ? never
        : string;

type Stringly<T> = [T] extends [undefined] ? undefined : { [K in keyof T]: AsString<T[K]> };

type AsFormValue<T> = T extends Blob
  ? T
  : T extends readonly (infer E)[]
    ? AsFormValue<E>[]
    : T extends undefined
      ? never
      : string;

type FormValues<B> = B extends { kind: "form" | "multipart"; value: infer V; required: infer Required }
  ? { kind: "form"; value: { [K in keyof V]: AsFormValue<V[K]> }; required: Required }
  : B;

/** The request as Hono's `hc` takes it: `param`, `query`, `header`, `cookie`, `json`, `form`. */
export type HonoInput<Parts extends RequestPartsShape> = Simplify<
  ([keyof Parts["param"]] extends [never] ? {} : { param: { [K in keyof Parts["param"]]: string } }) &
    Group<"query", Stringly<Parts["query"]>> &
    Group<"header", Stringly<Parts["header"]>> &
    Group<"cookie", Stringly<Parts["cookie"]>> &
    BodyGroup<FormValues<Parts["body"]>, { json: "json"; form: "form"; multipart: "form" }>
>;

/**
 * The request as specroute's `createClient` takes it: values of the types the schemas declare
 * (numbers as numbers), `json`, `form` (URL-encoded) or `multipart` for the body.
 */
export type ClientInput<Parts extends RequestPartsShape> = Simplify<
  ([keyof Parts["param"]] extends [never] ? {} : { param: Parts["param"] }) &
    Group<"query", Parts["query"]> &
    Group<"header", Parts["header"]> &
    Group<"cookie", Parts["cookie"]> &
    BodyGroup<Parts["body"], { json: "json"; form: "form"; multipart: "multipart" }>
>;
