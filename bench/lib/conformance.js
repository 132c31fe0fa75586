// Before anything is measured: every framework must answer the benchmark requests with the same
// status and the same JSON body (keys sorted), and refuse the invalid requests with the same status.
import { ENDPOINTS, EXTRA_VALID_REQUESTS, INVALID_REQUESTS } from "./requests.js";

/** JSON with object keys sorted, so key order does not count as a difference. */
export function normalize(value) {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, normalize(value[key])]),
    );
  }
  return value;
}

async function send(baseUrl, request) {
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.stringify(normalize(JSON.parse(text)));
  } catch {
    body = `(not JSON) ${text.slice(0, 200)}`;
  }
  return { status: response.status, type: response.headers.get("content-type") ?? "", body };
}

/**
 * Checks every framework against the first (the baseline). Returns a list of problems; empty means pass.
 * `servers` maps framework id to base URL.
 */
export async function checkConformance(servers) {
  const problems = [];
  const [referenceId] = Object.keys(servers);
  for (const request of [...ENDPOINTS, ...EXTRA_VALID_REQUESTS]) {
    const label = `${request.method} ${request.path} (${request.name})`;
    const reference = await send(servers[referenceId], request);
    if (reference.status !== request.status) {
      problems.push(`${referenceId}: ${label}: status ${reference.status}, expected ${request.status}`);
    }
    for (const [id, baseUrl] of Object.entries(servers)) {
      const got = id === referenceId ? reference : await send(baseUrl, request);
      if (got.status !== request.status)
        problems.push(`${id}: ${label}: status ${got.status}, expected ${request.status}`);
      if (!got.type.startsWith("application/json")) problems.push(`${id}: ${label}: content-type ${got.type}`);
      if (got.body !== reference.body) {
        problems.push(
          `${id}: ${label}: body differs from ${referenceId}\n    ${id}: ${got.body.slice(0, 300)}\n    ${referenceId}: ${reference.body.slice(0, 300)}`,
        );
      }
    }
  }
  for (const request of INVALID_REQUESTS) {
    for (const [id, baseUrl] of Object.entries(servers)) {
      const got = await send(baseUrl, request);
      if (got.status !== request.status) {
        problems.push(
          `${id}: ${request.name} (${request.method} ${request.path}): status ${got.status}, expected ${request.status}`,
        );
      }
    }
  }
  return problems;
}
