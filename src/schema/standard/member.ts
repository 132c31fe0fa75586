import type { JsonView, MemberSource, StandardMember } from "./json-view";
import { member } from "./json-view";
import type { StandardIssue, StandardJsonSchema, StandardResult } from "./spec";

/** One member to check through its parent: its key there, and the value sent (`present: false` when none was). */
export interface MemberEntry {
  readonly key: string;
  readonly value: unknown;
  readonly present: boolean;
  readonly view: JsonView;
}

/** What the parent said of each member: the issues under its key (paths after the key), else its value. */
export interface MemberVerdicts {
  readonly byKey: Map<string, { issues: StandardIssue[] } | { value: unknown; present: boolean }>;
}

/**
 * Checks members of one parent together. A Standard Schema gives no access to its members' validators,
 * so an object holding just these members' values is validated by the parent: the issues under their
 * keys are theirs, and the rest (members not sent, checks over the whole object) are not their concern.
 * A member's value is the parent's output for it when the whole object passed, else the value sent
 * (or, when none was, the default its JSON Schema states), so transforms apply only in the first case.
 * This judges members, not the object they will be stored in: an auto endpoint checks its model whole,
 * on what it is about to store (endpoints/model-check.ts), and stores that output.
 */
export function checkThroughParent(
  parent: StandardJsonSchema,
  entries: readonly MemberEntry[],
): MemberVerdicts | Promise<MemberVerdicts> {
  const sent: Record<string, unknown> = {};
  for (const entry of entries) if (entry.present) sent[entry.key] = entry.value;
  const result = parent["~standard"].validate(sent);
  return result instanceof Promise ? result.then((settled) => verdicts(entries, settled)) : verdicts(entries, result);
}

function verdicts(entries: readonly MemberEntry[], result: StandardResult<unknown>): MemberVerdicts {
  const byKey: MemberVerdicts["byKey"] = new Map();
  const issues = new Map<string, StandardIssue[]>();
  // An issue with no path is the object's (valibot's object pipe, ArkType's narrow), judged here on the
  // members sent alone: a PATCH's stored members could make it pass. The model check judges the object.
  // Stryker disable next-line ArrayDeclaration: equivalent, an item that is no issue has no path, so it is skipped as a path-less issue is
  for (const issue of result.issues ?? []) {
    const [first, ...rest] = issue.path ?? [];
    if (first === undefined) continue;
    const key = String(typeof first === "object" && first !== null ? first.key : first);
    const list = issues.get(key) ?? [];
    list.push({ message: issue.message, path: rest });
    issues.set(key, list);
  }
  const output = result.issues ? undefined : (result.value as Record<string, unknown> | undefined);
  for (const entry of entries) {
    const found = issues.get(entry.key);
    if (found) {
      byKey.set(entry.key, { issues: found });
    } else if (output && typeof output === "object" && entry.key in output) {
      byKey.set(entry.key, { value: output[entry.key], present: true });
    } else if (entry.present) {
      byKey.set(entry.key, { value: entry.value, present: true });
    } else {
      const fallback = entry.view.input.default;
      byKey.set(entry.key, { value: fallback, present: fallback !== undefined });
    }
  }
  return { byKey };
}

/** The member `key` of `parent`, with `view`: it validates a value by checking it through the parent. */
export function memberOf(parent: StandardJsonSchema | StandardMember, key: string, view: Omit<JsonView, "source">) {
  const source: MemberSource = { parent, key };
  const full: JsonView = { ...view, source };
  return member(full, parent["~standard"].vendor, (value: unknown) => {
    const checked = checkThroughParent(parent, [{ key, value, present: value !== undefined, view: full }]);
    return checked instanceof Promise ? checked.then((v) => resultOf(v, key)) : resultOf(checked, key);
  });
}

function resultOf(verdicts: MemberVerdicts, key: string): StandardResult<unknown> {
  const verdict = verdicts.byKey.get(key)!;
  return "issues" in verdict ? { issues: verdict.issues } : { value: verdict.value };
}
