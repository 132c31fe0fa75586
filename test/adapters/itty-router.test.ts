import { ittyHarness } from "../helpers";
import { runCommonSuite } from "./common.case";

runCommonSuite(ittyHarness);
