/**
 * The size of each view against the raw bytes, on recordings of real programs made here (the view
 * tests' recorder): what an agent would read instead of escape codes and redraw frames.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderScreen } from "../src/views/screen.ts";
import { textLines } from "../src/views/text.ts";
import { failingTestFile, gitRepoWithFiles, spinnerScript } from "../test/helpers/view-programs.ts";
import { recordPty, type Recording } from "../test/helpers/record.ts";
import type { BenchContext } from "./lib/context.ts";
import type { Figure } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const count = (s: string, word: string) => s.split(word).length - 1;

async function recordings(dir: string): Promise<Record<string, Recording>> {
  const repo = gitRepoWithFiles(path.join(dir, "repo"), 2000);
  fs.mkdirSync(path.join(dir, "bun"));
  fs.writeFileSync(path.join(dir, "bun", "cart.test.ts"), failingTestFile);
  const doc = path.join(dir, "doc.txt");
  fs.writeFileSync(doc, Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of a document paged with less\n`).join(""));
  return {
    "git clone --progress": await recordPty(["git", "clone", "--progress", `file://${repo}`, path.join(dir, "clone")], {}),
    "bun test --colors (1 failure)": await recordPty([process.execPath, "test", "--colors", "cart.test.ts"], {
      cwd: path.join(dir, "bun"),
    }),
    "spinner and bar": await recordPty(["python3", "-c", spinnerScript], {}),
    "top, 10 frames": await recordPty(["top", "-d", "0.1"], {
      drive: async ({ run }) => {
        await run.waitFor((o) => count(o, "top - ") >= 10, "ten frames");
        run.type("q");
      },
    }),
    "less, 10 pages (still running)": await recordPty(["less", doc], {
      drive: async ({ run }) => {
        for (let page = 1; page <= 10; page++) {
          const last = `line ${page * 29} of`;
          await run.waitFor((o) => o.includes(last), `page ${page}`);
          if (page < 10) run.type(" ");
        }
        run.proc.kill("SIGKILL");
      },
    }),
  };
}

export async function viewSizes(ctx: BenchContext): Promise<Figure[]> {
  ctx.progress("view sizes on recordings of real programs");
  const dir = fs.mkdtempSync(path.join(ctx.dir, "views-size-"));
  const text: number[] = [];
  const screen: number[] = [];
  const notes: string[] = [];
  for (const [name, rec] of Object.entries(await recordings(dir))) {
    const textChars = textLines(rec.chunks).reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0);
    const rendered = await renderScreen({ window: rec.window, size: rec.size, resizes: rec.resizes });
    const screenChars = rendered.lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    text.push(textChars / rec.bytes.length);
    screen.push(screenChars / rec.bytes.length);
    notes.push(
      `${name} ${rec.bytes.length} B: text ${(textChars / rec.bytes.length).toFixed(2)}, screen ` +
        `${(screenChars / rec.bytes.length).toFixed(2)}`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return [
    {
      name: "text view size / raw bytes",
      unit: "x",
      derun: summarize(text),
      notes: `UTF-8 bytes of the lines over raw bytes; ${notes.join("; ")}`,
    },
    {
      name: "screen view size / raw bytes",
      unit: "x",
      derun: summarize(screen),
      notes: "the same recordings rendered at their size (120x30)",
    },
  ];
}
