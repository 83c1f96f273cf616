/** `import source from "./pump.c" with { type: "text" }`: the C file's text (Bun's text loader). */
declare module "*.c" {
  const text: string;
  export default text;
}
