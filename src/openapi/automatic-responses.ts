import type { OpenAPIRouteSchema, ResponseConfig } from "../core/schema-types";
import type { Authenticator } from "../core/security/auth";
import {
  ForbiddenException,
  InputValidationException,
  NotAcceptableException,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from "../errors/exceptions";

type Responses = Record<string, ResponseConfig>;

// Entries the framework derived rather than the user wrote; `automaticResponses: false` leaves them out.
const derived = new WeakSet<ResponseConfig>();

/**
 * Marks `responses` as answers the framework gives on its own (e.g. an auto endpoint's 404), so the
 * router option `automaticResponses: false` can leave them out of the document; returns them.
 *
 * @example
 * responses: { "200": ok, ...automatic(NotFoundException.schema()) }
 */
export function automatic(responses: Responses): Responses {
  for (const config of Object.values(responses)) derived.add(config);
  return responses;
}

/** Whether a `responses` entry was marked by {@link automatic}. */
export function isAutomatic(config: ResponseConfig): boolean {
  return derived.has(config);
}

/** A status and the `responses` entry documented for it. */
export type ResponseEntry = readonly [status: string, config: ResponseConfig];

/**
 * What the framework itself answers for a route, before its handler runs: 400 when a request part is
 * declared, 413 and 415 when a body is, 401 and 403 when an authenticator guards it, 406 when its 200
 * comes in the media type the request's `Accept` chooses. As entries, not a record: V8 keeps a record's
 * status keys as array elements, so each record keyed "400" is a few hundred holes to allocate and copy.
 */
export function frameworkResponses(
  schema: OpenAPIRouteSchema,
  enforced: readonly Authenticator<unknown>[],
  negotiates = false,
): ResponseEntry[] {
  const request = schema.request ?? {};
  const declaresInput = Object.values(request).some((part) => part !== undefined);
  const entries: ResponseEntry[] = [];
  if (declaresInput) entries.push(...builtIn(InputValidationException));
  if (enforced.length > 0) entries.push(["401", unauthorizedResponse(enforced)], ...builtIn(ForbiddenException));
  if (request.body) entries.push(...builtIn(PayloadTooLargeException), ...builtIn(UnsupportedMediaTypeException));
  if (negotiates) entries.push(...builtIn(NotAcceptableException));
  return entries;
}

const builtInResponses = new Map<{ schema(): Responses }, readonly ResponseEntry[]>();

/** A built-in exception's entries, made once: a document asks for them on every route. Read only. */
function builtIn(exception: { schema(): Responses }): readonly ResponseEntry[] {
  let entries = builtInResponses.get(exception);
  if (!entries) {
    entries = Object.entries(exception.schema());
    builtInResponses.set(exception, entries);
  }
  return entries;
}

/** The 401 with the `WWW-Authenticate` challenges the route's authenticators send. */
function unauthorizedResponse(enforced: readonly Authenticator<unknown>[]): ResponseConfig {
  const [entry] = Object.values(UnauthorizedException.schema());
  const challenges = enforced.map((one) => `\`${one.challenge}\``).join(" or ");
  return {
    ...entry,
    description: `Missing or invalid credentials: send ${enforced.map((one) => one.expects).join(", or ")}`,
    headers: {
      "WWW-Authenticate": {
        description: `One challenge per accepted scheme: ${challenges}`,
        schema: { type: "string" },
      },
    },
  };
}
