/**
 * The one table of framework error codes: class name → code, HTTP status, default message, visibility.
 * They are the defaults of the built-in classes; a user subclass's own class fields win over them.
 */
export const ERROR_CODES = {
  ApiException: { code: 7000, status: 500, message: "Internal Error", visible: true },
  InputValidationException: { code: 7001, status: 400, message: "Input Validation Error", visible: true },
  NotFoundException: { code: 7002, status: 404, message: "Not Found", visible: true },
  UnauthorizedException: { code: 7003, status: 401, message: "Unauthorized", visible: true },
  ForbiddenException: { code: 7004, status: 403, message: "Forbidden", visible: true },
  MethodNotAllowedException: { code: 7005, status: 405, message: "Method Not Allowed", visible: true },
  ConflictException: { code: 7006, status: 409, message: "Conflict", visible: true },
  UnprocessableEntityException: { code: 7007, status: 422, message: "Unprocessable Entity", visible: true },
  TooManyRequestsException: { code: 7008, status: 429, message: "Too Many Requests", visible: true },
  InternalServerErrorException: { code: 7009, status: 500, message: "Internal Server Error", visible: false },
  BadGatewayException: { code: 7010, status: 502, message: "Bad Gateway", visible: true },
  ServiceUnavailableException: { code: 7011, status: 503, message: "Service Unavailable", visible: true },
  GatewayTimeoutException: { code: 7012, status: 504, message: "Gateway Timeout", visible: true },
  ResponseValidationException: { code: 7013, status: 500, message: "Response Validation Error", visible: false },
  PayloadTooLargeException: { code: 7014, status: 413, message: "Payload Too Large", visible: true },
  UnsupportedMediaTypeException: { code: 7015, status: 415, message: "Unsupported Media Type", visible: true },
  PreconditionFailedException: { code: 7016, status: 412, message: "Precondition Failed", visible: true },
  PreconditionRequiredException: { code: 7017, status: 428, message: "Precondition Required", visible: true },
  NotAcceptableException: { code: 7018, status: 406, message: "Not Acceptable", visible: true },
} as const;

export type ErrorName = keyof typeof ERROR_CODES;

/** Message sent in place of the real one when an exception is not visible to clients. */
export const HIDDEN_MESSAGE = "Internal Error";
