/**
 * Whether a value surely meets one of derun's tool-argument JSON Schemas (./tool-list.json): the
 * check a valid call takes instead of arktype (./arguments.ts), so a server whose calls are all
 * valid never loads it (about 38 MB resident, src/core/ark.ts). It knows only the keywords those
 * schemas use, each as arktype enforces it, and says "not surely" (false) for anything else: a
 * value it passes is one the tool's arktype type takes unchanged, a value it refuses goes to
 * arktype, which decides and words the error (test/mcp/schema-check.test.ts holds the two together).
 */

export interface ArgumentSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, ArgumentSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly ArgumentSchema[];
  readonly minimum?: number;
  readonly pattern?: string;
  readonly description?: string;
}

/** The keywords checked below; a schema with any other is not trusted (its values go to arktype). */
const KNOWN = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "const",
  "anyOf",
  "minimum",
  "pattern",
  "description",
]);

const patterns = new Map<string, RegExp>();
const patternOf = (source: string): RegExp => {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source)));
  return re;
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;

function objectMeets(schema: ArgumentSchema, value: unknown): boolean {
  if (!isPlainObject(value) || schema.additionalProperties !== false) return false;
  const properties = schema.properties ?? {};
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(properties, key) || !surelyMeets(properties[key]!, value[key])) return false;
  }
  return (schema.required ?? []).every((key) => Object.hasOwn(value, key));
}

function typeMeets(schema: ArgumentSchema, value: unknown): boolean {
  switch (schema.type) {
    case undefined:
      return true;
    case "object":
      return objectMeets(schema, value);
    case "string":
      return typeof value === "string" && (schema.pattern === undefined || patternOf(schema.pattern).test(value));
    case "integer":
      // Safe integers only: arktype's bounds past them are not all in the schema (a maximum of MAX_SAFE_INTEGER is left out).
      return Number.isSafeInteger(value) && (schema.minimum === undefined || (value as number) >= schema.minimum);
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

/** True when `value` meets `schema` as arktype's type of the same arguments would take it; false when not, or not surely. */
export function surelyMeets(schema: ArgumentSchema, value: unknown): boolean {
  if (value === undefined) return false;
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) return false;
  if (schema.type === undefined && schema.enum === undefined && schema.const === undefined && schema.anyOf === undefined) return false;
  if (schema.enum !== undefined && !schema.enum.includes(value)) return false;
  if (schema.const !== undefined && value !== schema.const) return false;
  if (schema.anyOf !== undefined && !schema.anyOf.some((branch) => surelyMeets(branch, value))) return false;
  if (schema.minimum !== undefined && schema.type !== "integer") return false;
  if (schema.pattern !== undefined && schema.type !== "string") return false;
  return typeMeets(schema, value);
}
