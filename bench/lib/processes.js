// Child processes of the run: spawned pinned to a core when taskset exists, tracked, and always killed.
import { spawn, spawnSync } from "node:child_process";

const children = new Set();
const HAS_TASKSET = spawnSync("taskset", ["-c", "0", "true"]).status === 0;
const CPUS = (await import("node:os")).availableParallelism();

/** Cores for the server under test and for the load generator (separate when the machine has two). */
export const PINNING = HAS_TASKSET && CPUS >= 2 ? { server: "0", load: "1" } : null;

/**
 * Starts `node ...execArgv script ...args` with an IPC channel, on core `cpu` when pinning is possible.
 * stdout/stderr are collected (last 64 KiB) for error messages.
 */
export function spawnNode(script, args = [], { cpu, env, ipc = true, execArgv = [] } = {}) {
  const nodeArgs = [...execArgv, script, ...args];
  const [command, commandArgs] =
    PINNING && cpu !== undefined
      ? ["taskset", ["-c", cpu, process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
  const child = spawn(command, commandArgs, {
    stdio: ["ignore", "pipe", "pipe", ...(ipc ? ["ipc"] : [])],
    env: { ...process.env, ...env },
  });
  child.output = "";
  const collect = (chunk) => {
    child.output = (child.output + chunk).slice(-65536);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/** Waits for the first IPC message of `type` (or the child's exit, or the timeout). */
export function waitForMessage(child, type, timeoutMs) {
  return new Promise((resolve, reject) => {
    const done = (fn, value) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("close", onExit);
      fn(value);
    };
    const onMessage = (message) => {
      if (message?.type === "error") done(reject, new Error(`${message.error}\n${child.output}`));
      else if (message?.type === type) done(resolve, message);
    };
    const onExit = (code, signal) =>
      done(reject, new Error(`child exited (${code ?? signal}) before "${type}"\n${child.output}`));
    const timer = setTimeout(
      () => done(reject, new Error(`timed out after ${timeoutMs} ms waiting for "${type}"`)),
      timeoutMs,
    );
    child.on("message", onMessage);
    child.on("close", onExit);
  });
}

/** Sends `message` and waits for the reply of type `replyType`. */
export function ask(child, message, replyType, timeoutMs) {
  const reply = waitForMessage(child, replyType, timeoutMs);
  child.send(message);
  return reply;
}

/** Runs a script to completion; resolves with its last IPC message of `type`. */
export async function runToCompletion(script, args, { cpu, type = "result", timeoutMs }) {
  const child = spawnNode(script, args, { cpu });
  try {
    return await waitForMessage(child, type, timeoutMs);
  } finally {
    kill(child);
  }
}

export function kill(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.delete(child);
}

/** Kills every child still running; called on every way out of the run. */
export function killAll() {
  for (const child of children) kill(child);
}

process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}
