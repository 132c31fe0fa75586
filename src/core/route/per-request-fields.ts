import { seam } from "../../schema";
import type { OpenAPIRoute, PerRequestField } from "./open-api-route";

/** Fields the framework sets per request or compiles at registration: never copied per request. */
const FRAMEWORK_FIELDS: ReadonlySet<string> = new Set([
  "schema",
  "params",
  "args",
  "validatedData",
  "unvalidatedData",
  "authPrincipal",
]);

/** What the class fields held right after construction, to tell them from state registration computed. */
export function fieldSnapshot(endpoint: OpenAPIRoute): ReadonlyMap<string, unknown> {
  return new Map(Object.entries(endpoint));
}

/**
 * The class fields holding a mutable container (array, plain object, Map, Set) that each request
 * gets a shallow copy of, so what `handle` adds to them never reaches the next request (chanfana
 * builds an instance per request; specroute builds one per route). Framework fields, the class's
 * `configurationFields`, zod schemas, frozen values and state `prepareRoute()` put in place are shared.
 */
export function perRequestFields(endpoint: OpenAPIRoute, constructed: ReadonlyMap<string, unknown>): PerRequestField[] {
  const fields: PerRequestField[] = [];
  const configuration = configurationFieldsOf(endpoint.constructor);
  for (const [name, value] of Object.entries(endpoint)) {
    if (FRAMEWORK_FIELDS.has(name) || configuration.has(name) || constructed.get(name) !== value) continue;
    const copy = copierOf(value);
    if (copy) fields.push([name, copy]);
  }
  return fields;
}

/** The `configurationFields` a class and every class above it declare. */
function configurationFieldsOf(endpointClass: Function): Set<string> {
  const fields = new Set<string>();
  // Each class's own list, so a subclass need not spread its parent's (a spread would keep unused classes in bundles).
  for (
    let current: any = endpointClass;
    current && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    if (Object.hasOwn(current, "configurationFields")) for (const name of current.configurationFields) fields.add(name);
  }
  return fields;
}

function copierOf(value: unknown): ((value: any) => unknown) | null {
  if (typeof value !== "object" || value === null || Object.isFrozen(value) || seam.isSchema(value)) return null;
  if (Array.isArray(value)) return (array: unknown[]) => array.slice();
  if (value instanceof Map) return (map: Map<unknown, unknown>) => new Map(map);
  if (value instanceof Set) return (set: Set<unknown>) => new Set(set);
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype) return (object: object) => ({ ...object });
  if (proto === null) return (object: object) => Object.assign(Object.create(null), object);
  return null;
}
