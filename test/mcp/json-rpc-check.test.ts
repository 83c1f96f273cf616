/**
 * The line check passes a plain tools/call (a name and an object of arguments) without the SDK's
 * zod schema: every such call must be one the schema passes, and the verdict the same either way.
 * Params are made as they come off the wire (JSON.parse of a line), over names, arguments and
 * extra members of every kind, `__proto__` included.
 */
import { describe, expect, test } from "bun:test";
import { ClientRequestSchema } from "@modelcontextprotocol/core";
import { checkLine, isPlainToolCall } from "../../src/mcp/json-rpc-check.ts";

const toolsCall = ClientRequestSchema.options.find((schema) => schema.shape.method.value === "tools/call")!;

const NAMES = ['"derun_read_output"', '""', '"x\\u0000y"', "1", "null", "true", "{}", "[]", undefined];
const ARGUMENTS = [
  undefined,
  "{}",
  '{"session_id":"a","cursor":"0","encoding":"base64"}',
  '{"nested":{"deep":[1,2,{"x":null}]}}',
  '{"__proto__":{"x":1}}',
  '{"constructor":1,"toString":"x"}',
  "[]",
  "[1]",
  "null",
  '"text"',
  "1",
  "true",
];
const EXTRA = [undefined, '"_meta":{}', '"_meta":{"progressToken":1}', '"task":{"ttl":1}', '"foo":1', '"__proto__":{}'];

/** Every params text of the product above (members in either order). */
function* paramsTexts(): Generator<string> {
  for (const name of NAMES)
    for (const args of ARGUMENTS)
      for (const extra of EXTRA) {
        const members = [
          ...(name === undefined ? [] : [`"name":${name}`]),
          ...(args === undefined ? [] : [`"arguments":${args}`]),
          ...(extra === undefined ? [] : [extra]),
        ];
        yield `{${members.join(",")}}`;
        yield `{${[...members].reverse().join(",")}}`;
      }
  yield "[]";
  yield "null";
  yield '"params"';
}

describe("a plain tools/call skips the schema", () => {
  test("every call taken as plain is one the SDK's schema passes, with the same verdict", () => {
    let plain = 0;
    let total = 0;
    for (const text of paramsTexts()) {
      total++;
      const params: unknown = JSON.parse(text);
      const schemaPasses = toolsCall.safeParse({ method: "tools/call", params }).success;
      if (isPlainToolCall("tools/call", params)) {
        plain++;
        expect({ text, schemaPasses }).toEqual({ text, schemaPasses: true });
      }
      const line = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${text}}`;
      const verdict = checkLine(line);
      const isObjectParams = typeof params === "object" && params !== null && !Array.isArray(params);
      // The verdict is the schema's: a message exactly when params are an object the schema passes.
      expect({ text, kind: verdict.kind }).toEqual({ text, kind: isObjectParams && schemaPasses ? "message" : "reply" });
    }
    // The fast way is taken for the calls an agent makes (and the test is not empty).
    expect(plain).toBeGreaterThan(20);
    expect(total).toBeGreaterThan(1000);
    expect(isPlainToolCall("tools/list", { name: "x" })).toBe(false);
  });
});
