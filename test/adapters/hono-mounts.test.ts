import { Hono } from "hono";
import { describeHonoMounts, installedVersion } from "./hono-mounts.case";

describeHonoMounts(installedVersion("hono"), Hono);
