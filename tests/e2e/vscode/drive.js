// Drives VS Code (code-server) in Debian's headless Chromium with playwright-core, against the
// copied fixture workspace. Usage: node drive.js <url> <workspace-dir> <screenshot-dir>
// Prints "ok   - <check>" per passed check and exits 0 only when all passed; on a failure it
// saves vscode-failure.png in the screenshot dir and exits 1 (see lib.js).
const fs = require("fs");
const path = require("path");
const {
  editorText,
  expectSuggestion,
  goTo,
  locate,
  log,
  main,
  ok,
  openFile,
  openWorkbench,
  runCommand,
  seconds,
  waitFor,
} = require("./lib");

const SKILL = "skills/openclaw/card-maker/SKILL.md";
const MANIFEST = "outputs/spring-picnic/.easel.json";
const UNREGISTERED = "card_2.svg";

main(async (page, { url, workspace, shotDir }) => {
  await openWorkbench(page, url);

  // 1) CM002 for the drifted option: a squiggle and a Problems entry with the code.
  const drift = locate(workspace, SKILL, "--sise");
  await openFile(page, SKILL);
  await goTo(page, drift); // squiggles are only rendered for visible lines
  await page.waitForSelector(".monaco-editor .squiggly-error", { timeout: seconds(60) });
  ok("squiggle under the drifted option");
  await page.keyboard.press("Control+Shift+M");
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "CM002" });
  await problem.first().waitFor({ timeout: seconds(30) });
  const problemText = (await problem.first().innerText()).replace(/\s+/g, " ");
  if (!problemText.includes(`Ln ${drift.line}, Col ${drift.column}`)) {
    throw new Error(`CM002 entry is at the wrong place: ${problemText}`);
  }
  ok(`Problems entry: ${problemText}`);
  await goTo(page, drift);
  await page.waitForTimeout(500); // let the hover-free cursor settle before the screenshot
  await page.screenshot({ path: path.join(shotDir, "vscode-diagnostics.png") });

  // 2) The quick fix replaces the option with the one the script defines.
  await page.keyboard.press("Control+.");
  const fix = page.locator(".action-widget .monaco-list-row", { hasText: "--size" });
  await fix.first().waitFor({ timeout: seconds(30) });
  log(`quick fix offered: ${(await fix.first().innerText()).trim()}`);
  // The preferred fix comes first and is focused; the menu takes keys, not clicks, reliably.
  const focused = page.locator(".action-widget .monaco-list-row.focused");
  const focusedText = await focused.first().innerText({ timeout: seconds(5) });
  if (!focusedText.includes("--size")) throw new Error(`focused action is ${focusedText}`);
  await page.keyboard.press("Enter");
  await waitFor(
    "the quick fix edit",
    async () => {
      const text = await editorText(page);
      return !text.includes("--sise") && text.includes("cards.md --size 3x4");
    },
    seconds(15),
  );
  ok("quick fix replaced --sise with --size");

  // 3) Completion inside the render command offers an option of `render`.
  const render = locate(workspace, SKILL, "--theme paper --size 3x4");
  await goTo(page, { line: render.line, column: 1 });
  await page.keyboard.press("End");
  await page.keyboard.type(" --fo");
  await expectSuggestion(page, "--footer", seconds(30));
  ok("completion offers render's --footer");
  await page.keyboard.press("Escape");

  // 4) "Easel: Register Deliverables" on a manifest with an unlisted root file.
  await openFile(page, MANIFEST);

  // 4a) The shipped JSON Schema drives completion in .easel.json: the status values.
  const status = locate(workspace, MANIFEST, '"draft"');
  await goTo(page, { line: status.line, column: status.column + 1 });
  await expectSuggestion(page, "published", seconds(30));
  ok("schema completion offers the status value published");
  await page.keyboard.press("Escape");

  await runCommand(page, "Easel: Register Deliverables");
  const manifestPath = path.join(workspace, MANIFEST);
  await waitFor(
    `${UNREGISTERED} in deliverables on disk`,
    async () => {
      try {
        const data = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
        return Array.isArray(data.deliverables) && data.deliverables.includes(UNREGISTERED);
      } catch {
        return false; // mid-write or not yet saved
      }
    },
    seconds(30),
  );
  ok(`${MANIFEST} on disk lists ${UNREGISTERED}`);
});
