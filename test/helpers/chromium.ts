/**
 * A real browser for the exported page's tests: Debian's headless Chromium (installed by .ci/run)
 * opens a file:// page with no name resolving (`MAP * ~NOTFOUND`). The test waits, over the DevTools
 * protocol, until the page shows what it needs (the player draws after its WebAssembly and the
 * recording are ready), then takes the DOM and a screenshot, and reads every request the page itself
 * made from Chromium's net log (the browser's own background requests carry no page origin).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli.ts";
import { until } from "./until.ts";

export const chromium = Bun.which("chromium");

export interface Rendered {
  /** The DOM once `ready` held. */
  readonly dom: string;
  /** The URLs the page asked the network for. */
  readonly requests: string[];
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND",
  "--remote-debugging-port=0",
];

/** One DevTools connection: a command, its answer. */
async function devtools(url: string): Promise<{ send(method: string, params?: object): Promise<any>; close(): void }> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  let id = 0;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(`devtools: ${JSON.stringify(message.error)}`));
    else pending.resolve(message.result);
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        waiting.set(++id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/**
 * Opens `url` (file://, a fragment allowed) in a `width`x`height` window, waits until the page's
 * `ready` expression (JavaScript, evaluated in the page) is true, and returns its DOM and the
 * requests it made; with `png`, saves a screenshot there first.
 */
export async function render(
  url: string,
  ready: string,
  options: { png?: string; width?: number; height?: number } = {},
): Promise<Rendered> {
  using profile = tempDir("derun-chromium-");
  const netLog = join(profile.path, "net.json");
  const size = `--window-size=${options.width ?? 1200},${options.height ?? 760}`;
  const args = [...FLAGS, size, `--user-data-dir=${profile.path}`, `--log-net-log=${netLog}`, "about:blank"];
  const proc = Bun.spawn([chromium!, ...args], { stdout: "ignore", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  try {
    const portFile = join(profile.path, "DevToolsActivePort");
    const port = await until("chromium's DevTools port", () => {
      if (proc.exitCode !== null) throw new Error(`chromium exited ${proc.exitCode}`);
      const lines = readText(portFile)?.split("\n") ?? [];
      return lines.length >= 2 ? lines[0] : undefined;
    });
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
    const page = await devtools(targets.find((t) => t.type === "page")!.webSocketDebuggerUrl);
    const evaluate = async (expression: string) => {
      const answer = await page.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
      if (answer.exceptionDetails)
        throw new Error(`in the page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
      return answer.result.value;
    };
    // Opened from about:blank once connected, so no look lands in a document about to be replaced.
    const opened = await page.send("Page.navigate", { url });
    if (opened.errorText) throw new Error(`cannot open ${url}: ${opened.errorText}`);
    await evaluate(`document.readyState === "complete" || new Promise((resolve) => addEventListener("load", resolve))`);
    // Looked at in the page: until it holds, or 30 s (a bound for a page that never draws, not a timing).
    await evaluate(
      `new Promise((resolve, reject) => { const t0 = Date.now(); const look = () => { if (${ready}) resolve(true); ` +
        `else if (Date.now() - t0 > 30000) reject(new Error("the page never showed " + ${JSON.stringify(ready)})); ` +
        "else setTimeout(look, 20); }; look(); })",
    );
    const dom = (await evaluate("document.documentElement.outerHTML")) as string;
    if (options.png) writeFileSync(options.png, Buffer.from((await page.send("Page.captureScreenshot")).data, "base64"));
    page.close();
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    // Closed through DevTools, so it writes the net log out whole.
    const browser = await devtools(version.webSocketDebuggerUrl);
    await browser.send("Browser.close").catch(() => undefined);
    await proc.exited;
    return { dom, requests: pageRequests(netLog) };
  } catch (error) {
    proc.kill();
    await proc.exited;
    throw new Error(`${(error as Error).message}; chromium said: ${(await stderr).slice(-1500)}`);
  }
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

interface NetLog {
  readonly constants: { readonly logEventTypes: Record<string, number> };
  readonly events: ReadonlyArray<{ readonly type: number; readonly params?: { readonly url?: string; readonly initiator?: string } }>;
}

/** Requests started on behalf of a page (initiator: its origin, `null` for file://), not by the browser itself. */
function pageRequests(netLog: string): string[] {
  const log = JSON.parse(readFileSync(netLog, "utf8")) as NetLog;
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  return log.events
    .filter((e) => e.type === start && e.params?.url !== undefined && e.params.initiator !== "not an origin")
    .map((e) => e.params!.url!);
}

/** The player's screen in a DOM: one string per terminal row, trailing blanks trimmed. */
export function playerScreen(dom: string): string[] {
  const pre = dom.match(/<pre class="ap-term-text[^"]*"[^>]*>([\s\S]*?)<\/pre>/);
  if (!pre) return [];
  return pre[1]!
    .split(/<span class="ap-line"/)
    .slice(1)
    .map((row) => unescapeHtml(row.replace(/^[^>]*>/, "").replace(/<[^>]*>/g, "")).trimEnd());
}

/** A page expression: the player's screen shows `text`. */
export const screenShows = (text: string): string =>
  `document.querySelector(".ap-term-text")?.textContent.includes(${JSON.stringify(text)})`;

/** A page expression: a row of the player's screen is `text` (trailing blanks aside). */
export const screenRow = (text: string): string =>
  `[...document.querySelectorAll(".ap-term-text .ap-line")].some((row) => row.textContent.trimEnd() === ${JSON.stringify(text)})`;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };
export const unescapeHtml = (text: string): string => text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name]!);
