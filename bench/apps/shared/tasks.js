// Data every benchmark app serves, so responses are identical across frameworks.
// Handlers only look things up or build small objects here; validation is each framework's own.

export const STATUSES = ["open", "doing", "closed"];
export const TASK_COUNT = 10_000;
/** The id a created task is answered with (no store: the POST case measures validation, not writes). */
export const CREATED_ID = TASK_COUNT + 1;

/** Task number `id` (1-based), deterministic. */
export function makeTask(id) {
  return {
    id,
    title: `Task ${id}`,
    assignee: `user${id % 50}@example.com`,
    priority: (id % 5) + 1,
    done: id % 4 === 0,
    status: STATUSES[id % 3],
  };
}

const TASKS = Array.from({ length: TASK_COUNT }, (_, i) => makeTask(i + 1));

/** The task with this id, or undefined. */
export function findTask(id) {
  return TASKS[id - 1];
}

/** One page of the in-memory collection, shaped by the (validated) filters: `{ result, page, per_page }`. */
export function listTasks({ page, per_page, status, search }) {
  const result = [];
  const first = (page - 1) * per_page;
  for (let i = 0; i < per_page && first + i < TASK_COUNT; i++) {
    const task = TASKS[first + i];
    result.push({
      ...task,
      title: search === undefined ? task.title : `${task.title} ${search}`,
      status: status ?? task.status,
    });
  }
  return { result, page, per_page };
}

/** The created task as answered by POST /tasks. */
export function createdTask(body) {
  return { id: CREATED_ID, ...body };
}
