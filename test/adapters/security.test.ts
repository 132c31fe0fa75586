import { harnesses } from "../helpers";
import { runSecuritySuite } from "./security.case";

for (const harness of harnesses) runSecuritySuite(harness);
