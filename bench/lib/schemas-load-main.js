// The schema-library case's load generator: a long-lived process (its own core when pinning is possible)
// that sends a fixed number of requests on request: `connections` workers, each sending its next request
// when the last was answered, over a keep-alive agent of `connections` sockets (at most `connections`
// requests in flight). Node's own http client: autocannon's `amount` mode ends a sample on its 1-second
// tick, not at the last answer, which would make the wall time whole seconds. Reports each status's count.
// With `freshHeader`, each request carries that header with a value of its own (an Idempotency-Key).
import http from "node:http";

process.on("disconnect", () => process.exit(0));

function send(agent, url, { method, headers, body }) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent, timeout: 10_000 }, (response) => {
      response.on("data", () => {});
      response.on("end", () => resolve(response.statusCode));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error("timed out after 10 s")));
    request.on("error", reject);
    request.end(body);
  });
}

async function run({ url, method, headers, body, connections, amount, id, freshHeader }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const statuses = {};
  let sent = 0;
  let errors = 0;
  const start = performance.now();
  const worker = async () => {
    while (sent < amount) {
      sent++;
      const sending = freshHeader ? { ...headers, [freshHeader]: `${process.pid}-${id}-${sent}` } : headers;
      try {
        const status = await send(agent, url, { method, headers: sending, body });
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { requests: amount - errors, seconds, rps: (amount - errors) / seconds, errors, timeouts: 0, statuses };
}

process.on("message", async (message) => {
  if (message.type !== "run") return;
  try {
    process.send({ type: "result", id: message.id, ...(await run(message)) });
  } catch (err) {
    process.send({ type: "result", id: message.id, failure: String(err?.stack ?? err) });
  }
});
process.send({ type: "ready" });
