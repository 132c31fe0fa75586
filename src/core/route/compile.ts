import type { ErrorFormat, HandlerZodErrors } from "../../errors/render";
import type { OpenAPIRouteSchema } from "../schema-types";
import type { FailureAs } from "./failure";
import type { Serializer } from "./negotiate";
import {
  OpenAPIRoute,
  type OpenAPIRouteClass,
  type RequestContext,
  type RouteOptions,
  requestStateFactory,
  type ServedEndpoint,
} from "./open-api-route";
import { fieldSnapshot, perRequestFields } from "./per-request-fields";
import { ResponsePlan } from "./respond";
import { checkedValidationFailures, type PlanOptions, RoutePlan, type ValidationFailures } from "./route-plan";
import { checkSchemaSlots } from "./schema-slots";
import type { RouteTrace } from "./tracing";

// Each prepared endpoint's class fields as constructed, before `prepareRoute()`: what compiling it
// tells apart from the state `prepareRoute()` put in place (see `perRequestFields`).
const constructedFields = new WeakMap<OpenAPIRoute, ReadonlyMap<string, unknown>>();

/** What a route is compiled with besides its endpoint: the router's options, and a name for logs. */
export interface CompileOptions extends PlanOptions {
  validateResponse: boolean;
  errorFormat: ErrorFormat;
  handlerZodErrors: HandlerZodErrors;
  /** Writers of the media types other than JSON a response may offer, by lower-case `type/subtype`. */
  serializers: Readonly<Record<string, Serializer>>;
  passthroughErrors: boolean;
  /** What the router's error hook is thrown for a failure; unset: the rendered response answers. */
  failureAs: FailureAs | undefined;
  method: string;
  label: string;
}

/** A route compiled once: its endpoint instance and the plans every request reads. Never changed after. */
export interface CompiledRoute {
  readonly endpoint: OpenAPIRoute;
  /** The schema as `getSchema()` gave it. */
  readonly schema: OpenAPIRouteSchema;
  readonly method: string;
  readonly plan: RoutePlan;
  readonly responses: ResponsePlan;
  /** The endpoint overrides `validateResponse()`, so the router's `validateResponse` calls it (as chanfana does). */
  readonly validatesResponseItself: boolean;
  /** A request's own object: inherits from `endpoint`, with its own copy of each mutable class field. */
  readonly newRequestState: (args: unknown[], served: ServedEndpoint) => RequestContext;
  readonly errorFormat: ErrorFormat;
  /** What a ZodError thrown by the app's own code answers: a 400, or a hidden 500. */
  readonly handlerZodErrors: HandlerZodErrors;
  /** Errors go to the router as thrown, without `handleError` (chanfana's `passthroughErrors`). */
  readonly passthroughErrors: boolean;
  readonly failureAs: FailureAs | undefined;
  /** The route's name in logs and errors: `GET /tasks/:id (GetTask)`. */
  readonly label: string;
  /** How its requests are traced, when the router serving it has a `tracing` option. */
  readonly trace?: RouteTrace;
}

/** Constructs the endpoint class for a route and runs its `prepareRoute()`: the route's single instance. */
export function prepareEndpoint(EndpointClass: OpenAPIRouteClass, routeOptions: RouteOptions): OpenAPIRoute {
  const endpoint = new EndpointClass(routeOptions);
  constructedFields.set(endpoint, fieldSnapshot(endpoint));
  endpoint.prepareRoute();
  return endpoint;
}

/** Compiles a prepared endpoint's schema into the plans its requests run on. */
export function compileRoute(endpoint: OpenAPIRoute, options: CompileOptions): CompiledRoute {
  const constructed = constructedFields.get(endpoint) ?? fieldSnapshot(endpoint);
  const schema = endpoint.getSchema();
  checkSchemaSlots(schema);
  const responses = new ResponsePlan(schema, options.validateResponse, options.serializers, options);
  const validationFailures = strictestOrder(endpoint, options, responses);
  return Object.freeze({
    endpoint,
    schema,
    method: options.method,
    plan: new RoutePlan(schema, { ...options, validationFailures }),
    responses,
    validatesResponseItself: endpoint.validateResponse !== OpenAPIRoute.prototype.validateResponse,
    newRequestState: requestStateFactory(endpoint, perRequestFields(endpoint, constructed)),
    errorFormat: options.errorFormat,
    handlerZodErrors: options.handlerZodErrors,
    passthroughErrors: options.passthroughErrors,
    failureAs: options.failureAs,
    label: options.label,
  });
}

/**
 * The route's order of errors: `"before-handle"` where its class or its router asks for it, and for a
 * route that streams, whose handler may only ask for its data once the stream's headers are sent.
 */
function strictestOrder(endpoint: OpenAPIRoute, options: CompileOptions, responses: ResponsePlan): ValidationFailures {
  const declared = (endpoint.constructor as OpenAPIRouteClass).validationFailures;
  const ownClass = checkedValidationFailures(declared, "static validationFailures");
  if (ownClass === "before-handle" || options.validationFailures === "before-handle") return "before-handle";
  return responses.streams.length > 0 ? "before-handle" : "when-asked";
}

/**
 * A compiled route as one router serves it: under its mounts' `auth`/`security` (`plan`), traced as
 * `trace` says; the same route when nothing changes.
 */
export function compiledWithin(route: CompiledRoute, plan: RoutePlan, trace?: RouteTrace): CompiledRoute {
  return plan === route.plan && trace === undefined ? route : Object.freeze({ ...route, plan, trace });
}
