// Plain JSON Schema objects are adapted by the schema layer's dialect converter, which the Standard
// JSON Schema seam shares; this module keeps the openapi layer's name for it.
export { adaptPlainSchema } from "../schema/dialect";
