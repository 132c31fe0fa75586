import { harnesses } from "../helpers";
import { runFormsSuite } from "./forms.case";

for (const harness of harnesses) runFormsSuite(harness);
