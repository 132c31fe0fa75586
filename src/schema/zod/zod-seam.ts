import type { z } from "zod";
import type { SchemaSeam } from "../seam";
import {
  acceptsUndefined,
  columnKind,
  fieldKind,
  fileConstraints,
  isAsyncParseError,
  isOrderable,
  isSchema,
  jsonParts,
  mayBeNull,
  mayOutputUndefined,
  objectShape,
  parameterMetadata,
  unwrap,
  validatesMemberwise,
  withoutDefault,
} from "./introspect";
import { toOpenApiSchema } from "./json-schema";

/** The schema seam for zod v4 (4.1 and later). */
export const zodSeam: SchemaSeam<z.ZodType> = {
  name: "zod",
  isSchema,
  unwrap,
  objectShape,
  validatesMemberwise,
  acceptsUndefined,
  mayOutputUndefined,
  mayBeNull,
  fieldKind,
  jsonParts,
  fileConstraints,
  columnKind,
  isOrderable,
  parameterMetadata,
  withoutDefault,
  toJsonSchema: toOpenApiSchema,
  isAsyncParseError,
};
