/**
 * The look at a JSON text's shape that the line transport takes before parsing (src/mcp/json-shape.ts):
 * the top-level id is read wherever it is in the object and however the text is cut into pieces,
 * never a nested one, and only a JSON-RPC id (a string or an integer); values are counted.
 */
import { describe, expect, test } from "bun:test";
import { JsonShape, shapeOf } from "../../src/mcp/json-shape.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the top-level id", () => {
  test.each([
    ['{"jsonrpc":"2.0","id":12,"method":"x"}', 12],
    ['{"id":"a\\"b","x":1}', 'a"b'],
    ['{"params":{"id":3},"id":-4}', -4],
    ['{"id": 7 }', 7],
    ['{"a":"x\\\\","id":"z"}', "z"],
    ['{"idd":1,"id":9', 9],
    ['{"method":"m","params":{"a":[1,2,"}"]},"jsonrpc":"2.0","id":55}', 55],
  ])("%s -> %p", (text, id) => {
    expect(shapeOf(bytes(text)).id).toBe(id);
  });

  test.each(['{"id":{"a":1}}', '[{"id":1}]', '{"id":1.5}', '{"params":{"id":3}}', '{"id":null}', `{"id":"${"x".repeat(300)}"}`, '"id"'])(
    "%s has none",
    (text) => {
      const shape = shapeOf(bytes(text));
      expect(shape.id).toBeUndefined();
      expect(shape.seeking).toBe(false);
    },
  );

  test("read across pieces of any size, after 1 MB of a string with escapes", () => {
    const text = bytes(`{"method":"m","params":{"pad":"${'a\\"b\\\\'.repeat(150_000)}"},"id":"last"}`);
    for (const size of [1, 7, 4096]) {
      const shape = new JsonShape();
      for (let at = 0; at < text.length; at += size) shape.feed(text.subarray(at, at + size));
      shape.end();
      expect(shape.id).toBe("last");
    }
  });
});

test("values are counted (members and elements), not the commas and brackets inside strings", () => {
  expect(shapeOf(bytes('{"a":1,"b":[1,2,3],"c":{"d":","}}')).values).toBe(8);
  expect(shapeOf(bytes(`{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(",")}}`)).values).toBeGreaterThan(20_000);
});
