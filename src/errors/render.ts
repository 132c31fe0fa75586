import type { $ZodIssue } from "zod/v4/core";
import { HIDDEN_MESSAGE } from "./codes";
import {
  type ApiException,
  type ErrorItem,
  InputValidationException,
  InternalServerErrorException,
  isApiException,
  MultiException,
  withoutStackTrace,
} from "./exceptions";

/** How error responses are written: the spec's envelope, or RFC 9457 problem details. */
export type ErrorFormat = "envelope" | "problem";

/** What a ZodError thrown by the app's own code answers: a 400 naming its fields, or a hidden 500. */
export type HandlerZodErrors = "validation" | "internal";

export const JSON_CONTENT_TYPE = "application/json;charset=UTF-8";
const PROBLEM_CONTENT_TYPE = "application/problem+json;charset=UTF-8";

/** Turns zod issues into one validation exception per issue, paths prefixed by the request part. */
export function issuesToException(issues: readonly $ZodIssue[], prefix: Array<string | number> = []): ApiException {
  // A bad request makes one exception per field: their stacks would name only this function.
  return withoutStackTrace(() => fieldExceptions(issues, prefix));
}

/**
 * Problems another schema library found (Standard Schema's `{ message, path }`) as the same exception
 * zod's issues make, paths prefixed by the request part.
 *
 * @example
 * problemsToException([{ message: "Invalid email", path: ["email"] }], ["body"]) // 400 at ["body", "email"]
 */
export function problemsToException(
  problems: ReadonlyArray<{ readonly message: string; readonly path: ReadonlyArray<string | number> }>,
  prefix: Array<string | number> = [],
): ApiException {
  const issues = problems.map(({ message, path }) => ({ code: "custom", message, path: [...path] }));
  return issuesToException(issues as $ZodIssue[], prefix);
}

function fieldExceptions(issues: readonly $ZodIssue[], prefix: Array<string | number>): ApiException {
  const errors: InputValidationException[] = [];
  const collect = (list: readonly $ZodIssue[], at: Array<string | number>) => {
    for (const issue of list) {
      const path = [...at, ...issuePath(issue)];
      const chosen = issue.code === "invalid_union" ? memberOfItsType(issue.errors) : undefined;
      if (chosen) collect(chosen, path);
      else errors.push(new InputValidationException(issue.message, path));
    }
  };
  collect(issues, prefix);
  return errors.length === 1 ? errors[0]! : new MultiException(errors);
}

/**
 * The issues of the one union member whose type the value has (an array sent to `Item | Item[]`), so a
 * failure names the field inside it rather than a pathless "Invalid input"; none when no member, or
 * several, took the value's type.
 */
function memberOfItsType(members: readonly (readonly $ZodIssue[])[] | undefined): readonly $ZodIssue[] | undefined {
  const ofItsType = (members ?? []).filter(
    (member) => member.length > 0 && !member.some((issue) => issue.code === "invalid_type" && issue.path.length === 0),
  );
  return ofItsType.length === 1 ? ofItsType[0] : undefined;
}

function issuePath(issue: $ZodIssue): string[] {
  // Every member a string, array indexes too, as chanfana answers and documents them (`z.array(z.string())`).
  return issue.path.map(String);
}

/** Whether a thrown value is a ZodError (by shape, so any zod copy counts). */
export function isZodError(err: unknown): err is { issues: $ZodIssue[] } {
  return (
    typeof err === "object" &&
    err !== null &&
    Array.isArray((err as { issues?: unknown }).issues) &&
    ((err as Error).name === "ZodError" || (err as Error).name === "$ZodError")
  );
}

/** Normalises anything thrown by a handler into an ApiException; unknown errors become a hidden 500. */
export function toApiException(err: unknown, zodErrors: HandlerZodErrors = "validation"): ApiException {
  if (isApiException(err)) return err;
  // The request's own validation throws a MultiException: a ZodError here came from the app's code.
  if (isZodError(err) && zodErrors === "validation") return issuesToException(err.issues);
  return new InternalServerErrorException(undefined, { cause: err });
}

/**
 * Renders an exception as a Response in the configured format. A `requestId` (a failure that was
 * logged) goes in the `x-request-id` header; the body keeps chanfana's messages unchanged.
 */
export function renderException(err: ApiException, format: ErrorFormat = "envelope", requestId?: string): Response {
  const headers: Record<string, string> = { ...err.headers };
  if (err.retryAfter !== undefined) headers["retry-after"] = String(err.retryAfter);
  if (requestId !== undefined) headers["x-request-id"] = requestId;
  headers["content-type"] = format === "problem" ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE;
  return new Response(JSON.stringify(exceptionBody(err, format)), { status: err.status, headers });
}

/**
 * The body of an error answer in the configured format: what a Response carries, and what a stream
 * that fails part-way sends as its last event or line.
 */
export function exceptionBody(err: ApiException, format: ErrorFormat = "envelope"): Record<string, unknown> {
  const errors = err.buildResponse();
  if (format !== "problem") return { success: false, errors, result: {} };
  return {
    type: "about:blank",
    title: problemTitle(err),
    status: err.status,
    detail: errors.length === 1 ? errors[0]!.message : err.isVisible ? problemDetail(err, errors) : HIDDEN_MESSAGE,
    errors,
  };
}

/** Several failures (a MultiException) named field by field, so `detail` alone tells what to fix; else the message. */
function problemDetail(err: ApiException, errors: readonly ErrorItem[]): string {
  if (!(err instanceof MultiException) || errors.length === 0) return err.message;
  const each = errors.map((item) => (item.path?.length ? `${item.path.join(".")}: ${item.message}` : item.message));
  return `${errors.length} problems: ${each.join("; ")}`;
}

/** What kind of error it is: a MultiException (every validation failure) is titled by the errors that set its status. */
function problemTitle(err: ApiException): string {
  if (err instanceof MultiException) {
    const lead = err.errors.find((member) => member.status === err.status);
    if (lead) return problemTitle(lead);
  }
  return err.default_message;
}

/**
 * The error response chanfana's `formatChanfanaError` gives: the envelope for a framework exception or
 * a ZodError (as 400 validation errors), `null` for anything else.
 *
 * @example
 * app.onError((err) => formatChanfanaError(err) ?? new Response("Internal Error", { status: 500 }));
 */
export function formatChanfanaError(error: unknown): Response | null {
  if (!isApiException(error) && !isZodError(error)) return null;
  return renderException(toApiException(error));
}
