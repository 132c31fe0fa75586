import { harnesses } from "../helpers";
import { runCrudSuite } from "./crud.case";
import { memoryBackend } from "./memory-backend";

for (const harness of harnesses) runCrudSuite(harness, memoryBackend);
