// The benchmark requests, and the invalid requests every framework must refuse with the same status.

export const CREATE_BODY = {
  title: "Write the benchmark",
  assignee: "ada@example.com",
  priority: 3,
  done: false,
  status: "open",
  due: "2026-12-01",
};

const JSON_HEADERS = { "content-type": "application/json" };

/** Throughput cases: one request each, repeated by the load generator. */
export const ENDPOINTS = [
  { id: "get", name: "GET /tasks/:id", method: "GET", path: "/tasks/42", status: 200 },
  {
    id: "create",
    name: "POST /tasks (6-field body)",
    method: "POST",
    path: "/tasks",
    headers: JSON_HEADERS,
    body: JSON.stringify(CREATE_BODY),
    status: 201,
  },
  {
    id: "list",
    name: "GET /tasks?page&per_page&status&search",
    method: "GET",
    path: "/tasks?page=2&per_page=20&status=open&search=foo",
    status: 200,
  },
  {
    id: "db-list",
    name: "GET /db/tasks (SQLite List, 10k rows)",
    method: "GET",
    path: "/db/tasks?page=2&per_page=20&status=open&search=foo",
    status: 200,
  },
];

const post = (body) => ({
  method: "POST",
  path: "/tasks",
  headers: JSON_HEADERS,
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/**
 * Requests that must fail the same way everywhere: proof that each app validates what the others do.
 * (Unknown query parameters are left out: chanfana accepts them although it documents refusing them.)
 */
export const INVALID_REQUESTS = [
  { name: "path id not a number", method: "GET", path: "/tasks/abc", status: 400 },
  { name: "path id not an integer", method: "GET", path: "/tasks/1.5", status: 400 },
  { name: "task not found", method: "GET", path: "/tasks/99999", status: 404 },
  { name: "body: bad email", ...post({ ...CREATE_BODY, assignee: "not-an-email" }), status: 400 },
  { name: "body: title missing", ...post({ ...CREATE_BODY, title: undefined }), status: 400 },
  { name: "body: title too long", ...post({ ...CREATE_BODY, title: "x".repeat(121) }), status: 400 },
  { name: "body: priority out of range", ...post({ ...CREATE_BODY, priority: 9 }), status: 400 },
  { name: "body: priority not an integer", ...post({ ...CREATE_BODY, priority: 2.5 }), status: 400 },
  { name: "body: done not a boolean", ...post({ ...CREATE_BODY, done: "yes" }), status: 400 },
  { name: "body: status not in enum", ...post({ ...CREATE_BODY, status: "blocked" }), status: 400 },
  { name: "body: due not an ISO date", ...post({ ...CREATE_BODY, due: "2026-13-01" }), status: 400 },
  { name: "body: malformed JSON", ...post("{"), status: 400 },
  { name: "query: per_page over 100", method: "GET", path: "/tasks?per_page=500", status: 400 },
  { name: "query: page 0", method: "GET", path: "/tasks?page=0", status: 400 },
  { name: "query: status not in enum", method: "GET", path: "/tasks?status=blocked", status: 400 },
  { name: "query: search too long", method: "GET", path: `/tasks?search=${"x".repeat(51)}`, status: 400 },
  { name: "db query: per_page over 100", method: "GET", path: "/db/tasks?per_page=101", status: 400 },
  { name: "db query: order_by unknown", method: "GET", path: "/db/tasks?order_by=assignee", status: 400 },
  { name: "db query: status not in enum", method: "GET", path: "/db/tasks?status=blocked", status: 400 },
];

/** Extra valid requests whose bodies must also agree (defaults applied, other orderings). */
export const EXTRA_VALID_REQUESTS = [
  { name: "list defaults", method: "GET", path: "/tasks", status: 200 },
  { name: "create without optional date", ...post({ ...CREATE_BODY, due: undefined }), status: 201 },
  { name: "db list ordered", method: "GET", path: "/db/tasks?order_by=priority&order_by_direction=desc", status: 200 },
  { name: "db list defaults", method: "GET", path: "/db/tasks", status: 200 },
];
