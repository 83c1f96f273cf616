// The page's own script and style, and asciinema-player's, are imported as text
// (`with { type: "text" }`) so `bun build --compile` embeds them in the binary.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*/page.js" {
  const text: string;
  export default text;
}
declare module "asciinema-player/dist/bundle/asciinema-player.min.js" {
  const text: string;
  export default text;
}
declare module "*.LICENSE.txt" {
  const text: string;
  export default text;
}
