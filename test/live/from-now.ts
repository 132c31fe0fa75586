// A listener that starts from now, as the changes endpoint opens one without Last-Event-ID: its first
// item is its place (a heartbeat carrying the id to reconnect with), taken here so a test reads changes.
import { expect } from "vitest";
import type { StreamHeartbeat } from "../../src/core/route/respond";
import { type ChangeSource, type ListenerView, listen } from "../../src/live/listen";

/** `listen(source, view)` from now, with its place taken: it must be the id `at` (the log's newest when it started). */
export async function listenFromNow<T>(
  source: ChangeSource<unknown>,
  view: ListenerView<T>,
  at?: number,
): Promise<AsyncIterableIterator<T | StreamHeartbeat>> {
  const events = await listen(source, view);
  const { value } = await events.next();
  expect(value).toMatchObject({ heartbeat: true, id: at === undefined ? expect.stringMatching(/^\d+$/) : String(at) });
  return events;
}
