/** `derun unhide <id>...`: agents (`derun mcp`) see sessions hidden by `derun hide` again. */
import type { ExitRequest } from "../command.ts";
import { hidingArgs, setHidden } from "./_hiding.ts";

export const args = hidingArgs;
export const usage = "[OPTIONS] <ID>...";
export const examples = ["derun unhide 01JCZ3T5M7Q8W2E4R6T8Y0U2I4"];

export const run = (flags: readonly string[]): Promise<ExitRequest> => setHidden("unhide", flags);
