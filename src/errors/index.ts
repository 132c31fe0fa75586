export { ERROR_CODES, type ErrorName } from "./codes";
export * from "./exceptions";
export { type ErrorFormat, issuesToException, isZodError, renderException, toApiException } from "./render";
