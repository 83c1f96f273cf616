/**
 * One line for arguments a tool refused: the first problem arktype found, as "<name> must be
 * <what> (was <value>)", quoting at most ~100 characters of the value. arktype's own summary lists
 * every failed constraint (a -1.5 fails both "integer" and "> 0": "must be... ◦ ◦"), repeats a
 * union's description as if it were the rule, and quotes the value whole.
 */
import type { ArkErrors } from "arktype";
import { quote, QUOTE_MAX_CHARS } from "../core/quote.ts";

/** The message for refused arguments (errors from a tool's input type). */
export function argumentMessage(errors: ArkErrors): string {
  const error = errors[0];
  if (!error) return "invalid arguments";
  const path = error.path.map(String).join(".");
  const name = path === "" ? "arguments" : path.length <= QUOTE_MAX_CHARS && !/[\s"]/.test(path) ? path : quote(path);
  // `"+": "reject"` refuses an argument the tool does not have.
  if (error.code === "predicate" && error.expected === "removed") return `unknown argument ${name}`;
  // Several failed constraints of one argument share the phrase the type configured: say it once.
  const expected = (
    error.expected
      .split("\n")
      .map((line) => line.replace(/^\s*◦\s*/, "").trim())
      .find(Boolean) ?? "valid"
  ).slice(0, 200);
  const was = error.code === "required" ? "missing" : quote(error.data);
  return `${name} must be ${expected} (was ${was})`;
}
