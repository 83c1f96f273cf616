// The shell snippets are imported as text (`with { type: "text" }`) and embedded in the binary.
declare module "*.bash" {
  const text: string;
  export default text;
}
declare module "*.zsh" {
  const text: string;
  export default text;
}
declare module "*.fish" {
  const text: string;
  export default text;
}
