/**
 * Tool argument schemas as a model reads them: every tool's schema is in its context on every turn,
 * so the JSON Schema arktype exports is made shorter without changing what it accepts. arktype's
 * `expected` meta (the phrase of one-line errors, no JSON Schema keyword) and `$schema` go; a union
 * of constants becomes an `enum`; a description repeated on each branch of a union stays on the
 * union only; an integer's `exclusiveMinimum: n` becomes `minimum: n + 1`, and a `maximum` of
 * Number.MAX_SAFE_INTEGER (the most a JSON number holds exactly, which no client goes past) goes.
 */

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

export function compactSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compactSchema);
  if (!isSchema(value)) return value;
  const out: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "expected" || key === "$schema") continue;
    out[key] =
      key === "properties" && isSchema(child)
        ? Object.fromEntries(Object.entries(child).map(([name, s]) => [name, compactSchema(s)]))
        : compactSchema(child);
  }
  if (Array.isArray(out.anyOf)) {
    const branches = (out.anyOf as Schema[]).map((branch) => {
      if (branch.description !== out.description) return branch;
      const { description: _, ...rest } = branch;
      return rest;
    });
    if (branches.every((b) => Object.keys(b).length === 1 && "const" in b)) {
      delete out.anyOf;
      out.enum = branches.map((b) => b.const);
    } else out.anyOf = branches;
  }
  if (out.type === "integer" && typeof out.exclusiveMinimum === "number") {
    out.minimum = out.exclusiveMinimum + 1;
    delete out.exclusiveMinimum;
  }
  if (out.type === "integer" && out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  return out;
}
