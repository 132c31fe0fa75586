import { harnesses } from "../helpers";
import { runResponsesSuite } from "./responses.case";

for (const harness of harnesses) runResponsesSuite(harness);
