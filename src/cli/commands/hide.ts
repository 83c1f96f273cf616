/**
 * `derun hide <id|last>...`: keep sessions from agents. `derun mcp` then serves them as if they did
 * not exist (not listed, read, searched, waited on or offered as resources); every command of the
 * person's (cat, ls, grep...) still reads them, and `derun ls` marks them. `derun unhide` undoes it.
 */
import type { ExitRequest } from "../command.ts";
import { hidingArgs, setHidden } from "./_hiding.ts";

export const args = hidingArgs;
export const usage = "[OPTIONS] <ID>...";
export const examples = ["derun hide last", "derun hide 01JCZ3T5M7Q8W2E4R6T8Y0U2I4"];

export const run = (flags: readonly string[]): Promise<ExitRequest> => setHidden("hide", flags);
