/**
 * MCP prompts: requests a person picks from a client's menu, filled in from the same queries the
 * tools serve, so the model starts with the facts instead of a tool call to find them.
 */
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt } from "@modelcontextprotocol/server";
import { DerunError, describeError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import lastFailure from "../tools/last-failure.ts";
import listCommands from "../tools/list-commands.ts";
import readText from "../tools/read-text.ts";
import { resolveSessionId } from "../transcript/index.ts";

const SESSION_ARG = {
  name: "session_id",
  description: 'A session id, "last" or "last~N" (default: the newest failure, or the newest session).',
  required: false,
};

export const PROMPTS: Prompt[] = [
  {
    name: "why-did-it-fail",
    title: "Why did it fail?",
    description: "Explain the newest failed command (or the session named) and how to fix it.",
    arguments: [SESSION_ARG],
  },
  {
    name: "summarize-session",
    title: "Summarize a session",
    description: "Summarize what happened in a recorded session: what ran, what failed, what is left.",
    arguments: [SESSION_ARG],
  },
];

/** Characters of session text a summary prompt carries. */
const SUMMARY_CHARS = 12000;

const message = (text: string): GetPromptResult["messages"][number] => ({ role: "user", content: { type: "text", text } });

export async function getPrompt(
  store: Store,
  name: string,
  args: Record<string, string> | undefined,
  signal: AbortSignal,
): Promise<GetPromptResult> {
  const context = { store, signal };
  const session = args?.session_id?.trim() || undefined;
  try {
    if (name === "why-did-it-fail") {
      const answer = lastFailure.render(await lastFailure.handler(session === undefined ? {} : { session_id: session }, context));
      return {
        description: "The newest failure, as derun recorded it",
        messages: [
          message(
            "A command I ran failed. derun recorded it; here is its account: how it ended, the lines that look like errors (N: a " +
              "failure line, N- context, by line number), then its last lines.\n\n" +
              `${answer}\n\nExplain why it failed and how to fix it. If you need more of its output, derun_read_text reads any line ` +
              `range, derun_search_output searches it.`,
          ),
        ],
      };
    }
    if (name === "summarize-session") {
      const id = await resolveSessionId(store, session ?? "last");
      const text = readText.render(
        await readText.handler({ session_id: id, view: "text", tail_lines: 400, max_chars: SUMMARY_CHARS }, context),
      );
      const commands = await listCommands.handler({ session_id: id, limit: 50 }, context).catch(() => undefined);
      const typed =
        commands && commands.commands.length > 0 ? `\n\nThe commands typed in it, newest first:\n${listCommands.render(commands)}` : "";
      return {
        description: `Session ${id}, as derun recorded it`,
        messages: [
          message(
            `Summarize this terminal session recorded by derun: what ran, what failed and why, what is left ` +
              `unfinished.${typed}\n\nIts text (the last lines):\n${text}`,
          ),
        ],
      };
    }
  } catch (error) {
    if (error instanceof DerunError && error.code !== "internal")
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, describeError(error));
    throw error;
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt: ${name.slice(0, 100)} (why-did-it-fail, summarize-session)`);
}
