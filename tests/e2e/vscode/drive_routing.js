// Drives VS Code (code-server) through the routing views of a SKILL.md: the cost lens above the
// frontmatter reads exactly what the server's cost_lens_title says ($EASEL_E2E_LENS, computed by
// the test), and the hover on `description:` shows the resident cost and the nearest competitors,
// the first of them $EASEL_E2E_COMPETITOR.
// Usage: node drive_routing.js <url> <workspace-dir> <screenshot-dir>
// Screenshot: vscode-routing.png (the lens and the hover below it).
const path = require("path");
const { goTo, locate, log, main, ok, openFile, openWorkbench, runCommand, seconds, waitFor } =
  require("./lib");

const SKILL = "skills/openclaw/note-digest/SKILL.md";
const LENS = process.env.EASEL_E2E_LENS;
const COMPETITOR = process.env.EASEL_E2E_COMPETITOR;

main(async (page, { url, workspace, shotDir }) => {
  if (!LENS || !COMPETITOR) throw new Error("EASEL_E2E_LENS and EASEL_E2E_COMPETITOR must be set");
  await openWorkbench(page, url);
  await openFile(page, SKILL);
  // Room for the whole lens and hover in the picture.
  await runCommand(page, "View: Toggle Minimap");

  // 1) The cost lens, above the first line (the frontmatter's `---`).
  const lens = page.locator(".monaco-editor .codelens-decoration", { hasText: "resident " });
  await lens.first().waitFor({ timeout: seconds(60) });
  const lensText = (await lens.first().innerText()).replace(/\u00a0/g, " ").trim();
  if (lensText !== LENS) throw new Error(`cost lens reads "${lensText}", expected "${LENS}"`);
  const firstLine = await page.locator(".monaco-editor .view-line").first().boundingBox();
  const lensBox = await lens.first().boundingBox();
  if (!(lensBox.y + lensBox.height <= firstLine.y + 1)) {
    throw new Error(`the lens is not above the first line (lens y ${lensBox.y}, line y ${firstLine.y})`);
  }
  ok(`cost lens above the frontmatter: "${lensText}"`);

  // 2) The hover on the `description:` key (editor.action.showHover, again until the server
  // answered: the first request can come before the routing state is built).
  const at = locate(workspace, SKILL, "description:");
  await goTo(page, { line: at.line, column: at.column + 3 });
  await page.mouse.move(1200, 760); // off the editor text, whose own hover would replace ours
  const hover = page.locator(".monaco-hover", { hasText: "Resident cost" });
  const deadline = Date.now() + seconds(30);
  for (;;) {
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    try {
      await hover.first().waitFor({ timeout: seconds(5) });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`no routing hover: ${err.message.split("\n")[0]}`);
    }
  }
  let text = "";
  await waitFor(
    "the hover's competitors",
    async () => {
      text = (await hover.first().innerText()).replace(/\s+/g, " ");
      return text.includes("Nearest competitors");
    },
    seconds(10),
  );
  const competitors = text.split("Nearest competitors")[1];
  const first = competitors.match(/([\w-]+) · \d+ %/);
  if (!first || first[1] !== COMPETITOR) {
    throw new Error(`first competitor ${first && first[1]}, expected ${COMPETITOR}: ${text}`);
  }
  if (!/Resident cost: \d+ tokens/.test(text)) throw new Error(`no resident count in: ${text}`);
  ok(`description hover: ${text.slice(0, 160)}…`);

  // The picture needs the lens too: the hover must sit below it, not over it.
  const hoverBox = await hover.first().boundingBox();
  if (hoverBox.y < lensBox.y + lensBox.height && hoverBox.y + hoverBox.height > lensBox.y) {
    throw new Error("the hover covers the lens");
  }
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shotDir, "vscode-routing.png") });
  log("vscode-routing.png saved");
});
