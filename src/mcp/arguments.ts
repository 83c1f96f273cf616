/**
 * A tool call's arguments checked: against the tool's JSON Schema as listed (./tool-list.json,
 * ./schema-check.ts) when the tool is one of derun's own, and only when that check refuses them
 * (or the tool is not one of derun's, as in tests) with its arktype type, which loads arktype
 * (src/core/ark.ts) and words the one-line error (./argument-message.ts) as before.
 */
import { arktype } from "../core/ark.ts";
import type { Query } from "../core/tool.ts";
import { queries } from "../tools/index.ts";
import { argumentMessage } from "./argument-message.ts";
import type { ArgumentSchema } from "./schema-check.ts";
import { surelyMeets } from "./schema-check.ts";
import toolList from "./tool-list.json" with { type: "json" };

const listed = new Map<string, ArgumentSchema>(toolList.tools.map((tool) => [tool.name, tool.inputSchema as unknown as ArgumentSchema]));
/** derun's own tools and their listed schemas (a tool of the same name passed in by a test is not one of them). */
const schemas = new Map(queries.flatMap((query) => (listed.has(query.name) ? [[query, listed.get(query.name)!] as const] : [])));

/** The arguments the tool takes (the object as sent), or the message that refuses them. */
export function checkArguments(tool: Query<any, object>, args: unknown): { readonly input: object } | { readonly refused: string } {
  const schema = schemas.get(tool);
  if (schema !== undefined && surelyMeets(schema, args)) return { input: args as object };
  const input = tool.input(args);
  if (input instanceof arktype().type.errors) return { refused: argumentMessage(input) };
  return { input: input as object };
}
