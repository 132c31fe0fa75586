// The `specroute/client` entry: runs in browsers and Workers, and imports nothing of the server.
export { type CallInit, type Client, type ClientOptions, type ClientResult, createClient, StreamError } from "./client";
export type {
  ClientInput,
  ErrorBody,
  ErrorEnvelope,
  ErrorStatus,
  HonoInput,
  ItemStream,
  PathParamNames,
  ProblemDetails,
  RequestParts,
  RouteAnswer,
  RouteMap,
  SuccessStatus,
} from "./route-types";
