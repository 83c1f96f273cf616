/**
 * The README's picture of `derun export --format html`: a real `derun shell` session (bash, typed
 * into on a PTY: a TypeScript build that fails, the fix, the build again), exported as a page and
 * photographed by headless Chromium once the player shows its last screen.
 *
 *   bun scripts/screenshot-html-export.ts [out.png]     default docs/html-export.png
 *
 * Needs bash and Debian's chromium (.ci/run installs both); writes nothing else outside a temp dir.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, render, screenShows } from "../test/helpers/chromium.ts";
import { REPO_ROOT, runDerun, tempDir } from "../test/helpers/cli.ts";
import { shellHome, startShell } from "../test/helpers/shells.ts";

const out = resolve(process.argv[2] ?? join(REPO_ROOT, "docs/html-export.png"));
if (!chromium || !Bun.which("bash")) {
  console.error("screenshot-html-export: needs chromium and bash on PATH (apt-get install chromium)");
  process.exit(1);
}

using state = tempDir("derun-screenshot-");
using home = shellHome("bash");
writeFileSync(join(home.path, "main.ts"), 'const port: number = "8080";\nexport { port };\n');
{
  const env = { PATH: `${join(REPO_ROOT, "node_modules/.bin")}:${process.env.PATH}` };
  await using shell = startShell("bash", home, { withMarks: true, env, viaDerun: { stateRoot: state.path, sessionId: "build" } });
  const steps = [
    "ls",
    "tsc --noEmit --pretty main.ts",
    "sed -i 's/\"8080\"/8080/' main.ts",
    "tsc --noEmit --pretty main.ts && echo build ok",
  ];
  for (const [i, step] of steps.entries()) {
    await shell.prompts(i + 1);
    shell.type(`${step}\r`);
  }
  await shell.prompts(steps.length + 1);
  await shell.exit();
}
const page = join(state.path, "build.html");
const exported = await runDerun(["export", "build", "--format", "html", "-o", page], { stateRoot: state.path });
if (exported.exitCode !== 0) throw new Error(`derun export failed: ${new TextDecoder().decode(exported.stderr)}`);
const shown = await render(pathToFileURL(page).href, screenShows("build ok"), { png: out, width: 1100, height: 560 });
if (shown.requests.length > 0) throw new Error(`the page made requests: ${shown.requests.join(", ")}`);
console.log(`wrote ${out}`);
