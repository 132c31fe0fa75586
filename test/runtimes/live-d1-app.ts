// A live collection on D1 in workerd: the tasks API of the live-collection tests, its database the D1
// binding DB, its listeners woken by the LiveChangesObject Durable Object bound as LIVE_CHANGES.
import { tasksApp } from "../live/tasks-app";

export { LiveChangesObject } from "../../src";

export default tasksApp({ binding: "DB" }, "tasks").app;
