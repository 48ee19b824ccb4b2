// Drives code-server with only the linux-x64 package installed (test_vscode_bundled.py): the
// server bundled in the .vsix must publish CM002 for the drifted option without any setup.
// Usage: node drive_bundled.js <url> <workspace-dir> <screenshot-dir> (see lib.js)
const path = require("path");
const { goTo, locate, main, ok, openFile, openWorkbench, seconds } = require("./lib");

const SKILL = "skills/openclaw/card-maker/SKILL.md";

main(async (page, { url, workspace, shotDir }) => {
  await openWorkbench(page, url);
  const drift = locate(workspace, SKILL, "--sise");
  await openFile(page, SKILL);
  await goTo(page, drift); // squiggles are only rendered for visible lines
  await page.waitForSelector(".monaco-editor .squiggly-error", { timeout: seconds(60) });
  ok("squiggle under the drifted option, from the bundled server");
  await page.keyboard.press("Control+Shift+M");
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "CM002" });
  await problem.first().waitFor({ timeout: seconds(30) });
  const problemText = (await problem.first().innerText()).replace(/\s+/g, " ");
  if (!problemText.includes(`Ln ${drift.line}, Col ${drift.column}`)) {
    throw new Error(`CM002 entry is at the wrong place: ${problemText}`);
  }
  ok(`Problems entry: ${problemText}`);
  await page.screenshot({ path: path.join(shotDir, "vscode-bundled.png") });
});
