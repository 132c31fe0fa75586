// The load generator: a long-lived process (own core) that runs autocannon samples on request.
// Latency percentiles come from each response's own timing (float ms), not autocannon's 1 ms buckets.
import autocannon from "autocannon";

process.on("disconnect", () => process.exit(0));

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function run({ url, method, headers, body, connections, durationSeconds }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statuses = {};
    const instance = autocannon(
      { url, method, headers, body, connections, duration: durationSeconds, pipelining: 1, timeout: 10 },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        resolve({
          requests: result.requests.total,
          seconds: result.duration,
          rps: result.requests.total / result.duration,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
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
