import { honoHarness } from "../helpers";
import { runCommonSuite } from "./common.case";

runCommonSuite(honoHarness);
