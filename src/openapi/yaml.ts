import type { OpenAPIDocument } from "./types";

// Plain (unquoted) scalars only where no YAML reader could take them for anything but that string.
const PLAIN = /^[A-Za-z_/$][A-Za-z0-9_./{}$+-]*$/;
const RESERVED = /^(?:true|false|yes|no|on|off|null|y|n|~)$/i;
// Dotted versions ("3.1.0") read as strings in every YAML version; other digit-led text may not.
const VERSION = /^\d+(?:\.\d+){2,}$/;

/**
 * Serialises a document (plain JSON data) as block-style YAML: strings that could read as anything
 * else are written JSON-quoted (valid YAML double-quoted scalars), no anchors, aliases or folding.
 *
 * @example
 * toYaml(buildDocument(routes, config)); // "openapi: 3.1.0\ninfo:\n  title: OpenAPI\n..."
 */
export function toYaml(doc: OpenAPIDocument): string {
  return `${block(doc, "").trimStart()}\n`;
}

function scalar(value: unknown): string {
  if (typeof value === "string") {
    return (PLAIN.test(value) && !RESERVED.test(value)) || VERSION.test(value) ? value : JSON.stringify(value);
  }
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : ".nan";
  if (typeof value === "boolean") return String(value);
  return "null";
}

function isCollection(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** A value at `indent`, starting on a new line when it is a non-empty collection. */
function block(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return " []";
    return value
      .map((item) => {
        if (!isCollection(item) || isEmpty(item)) return `\n${indent}- ${inline(item)}`;
        // A collection item starts on the dash's line: "- key: value".
        return `\n${indent}-${block(item, `${indent}  `).replace(/^\n\s*/, " ")}`;
      })
      .join("");
  }
  if (isCollection(value)) {
    const entries = Object.entries(value).filter(([, member]) => member !== undefined);
    if (entries.length === 0) return " {}";
    return entries
      .map(([key, member]) => {
        const name = scalar(key);
        return isCollection(member) && !isEmpty(member)
          ? `\n${indent}${name}:${block(member, `${indent}  `)}`
          : `\n${indent}${name}: ${inline(member)}`;
      })
      .join("");
  }
  return ` ${scalar(value)}`;
}

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return "[]";
  if (isCollection(value)) return "{}";
  return scalar(value);
}
