import { expect } from "vitest";

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

const key = { "x-api-key": "test-key" };
const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...key },
  body: JSON.stringify(body),
});

/** What a user of the example API does first, asserted the same way on every runtime. */
export async function runTasksScenario(fetch: Fetch): Promise<void> {
  const unauthorized = await fetch("/projects", { method: "POST", body: "{}" });
  expect(unauthorized.status).toBe(401);

  const created = await fetch("/projects", json({ name: "Launch", description: "Ship it" }));
  expect(created.status).toBe(201);
  const project = (await created.json()).result;
  expect(project).toMatchObject({ id: 1, name: "Launch", description: "Ship it" });
  expect(project.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

  expect((await fetch("/projects", json({ name: "Launch" }))).status).toBe(400);

  const upload = async (file: File) => {
    const form = new FormData();
    form.append("file", file);
    form.append("note", "greeting");
    // Encoded here, as bytes: Miniflare's fetch does not take this runtime's FormData as a body.
    const encoded = new Request("http://localhost/", { method: "POST", body: form });
    const headers = { ...key, "content-type": encoded.headers.get("content-type")! };
    const body = new Uint8Array(await encoded.arrayBuffer());
    return fetch("/projects/1/attachments", { method: "POST", headers, body });
  };
  const uploaded = await upload(new File(["hello"], "hello.txt", { type: "text/plain" }));
  expect(uploaded.status).toBe(201);
  expect(await uploaded.json()).toMatchObject({
    id: 1,
    projectId: 1,
    filename: "hello.txt",
    content_type: "text/plain",
    size: 5,
    sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    note: "greeting",
  });
  expect((await upload(new File(["<html>"], "page.html", { type: "text/html" }))).status).toBe(400);
  expect((await upload(new File([new Uint8Array(256 * 1024 + 1)], "big.txt", { type: "text/plain" }))).status).toBe(
    413,
  );
  const attachments = await (await fetch("/projects/1/attachments")).json();
  expect(attachments.result.map((a: { filename: string }) => a.filename)).toEqual(["hello.txt"]);

  for (const title of ["Draft post", "Review post", "Publish"]) {
    const response = await fetch(
      "/projects/1/tasks",
      json({ title, priority: (title.length % 5) + 1, due: "2026-12-01" }),
    );
    expect(response.status, title).toBe(201);
  }
  expect((await fetch("/projects/7/tasks", json({ title: "Orphan" }))).status).toBe(404);

  const patched = await fetch("/projects/1/tasks/2", json({ status: "done" }, "PATCH"));
  expect((await patched.json()).result).toMatchObject({ projectId: 1, id: 2, status: "done", title: "Review post" });

  const list = await (await fetch("/projects/1/tasks?search=post&order_by=id&order_by_direction=desc")).json();
  expect(list.result.map((task: { id: number }) => task.id)).toEqual([2, 1]);
  expect(list.result_info).toMatchObject({ count: 2, total_count: 2 });

  const stats = await (await fetch("/stats?projectId=1", { headers: { "X-Client": "tests" } })).json();
  expect(stats).toEqual({ client: "tests", counts: { todo: 2, doing: 0, done: 1 } });
  expect((await fetch("/stats?due_before=soon")).status).toBe(400);

  expect((await fetch("/projects/1/tasks/3", { method: "DELETE", headers: key })).status).toBe(200);
  expect((await fetch("/projects/1/tasks/3")).status).toBe(404);
}
