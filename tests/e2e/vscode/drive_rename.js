// Drives VS Code (code-server) through the script <-> docs graph of issue #15 on the note-digest
// skill: the code lens above collect's add_argument("--topic"), its click (references peek),
// Shift+F12 on the option, then F2 to rename it and File: Save All; the docs must hold the new
// option on disk. Usage: node drive_rename.js <url> <workspace-dir> <screenshot-dir>
// Screenshots: vscode-codelens.png (lens + peek), vscode-rename.png (the rename box),
// vscode-rename-result.png (SKILL.md after the rename).
const fs = require("fs");
const path = require("path");
const {
  editorText,
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

const SKILL_DIR = "skills/openclaw/note-digest";
const SCRIPT = `${SKILL_DIR}/scripts/digest.py`;
const SKILL = `${SKILL_DIR}/SKILL.md`;
const REFERENCE = `${SKILL_DIR}/references/usage.md`;
const OLD = "--topic";
const NEW = "--subject";
const DEFINITION = `collect.add_argument("${OLD}"`;
// collect's --topic is used by two commands in SKILL.md (one as the abbreviation --top) and two
// in references/usage.md, all in the one skill.
const LENS = /^\s*4 commands in 1 skill\s*$/;

/** The pointer over blank editor space, so no hover, lens highlight or tooltip is in a picture. */
async function parkMouse(page) {
  await page.mouse.move(1150, 140);
}

/** The references peek widget, once it lists rows. */
async function expectPeek(page, what) {
  const peek = page.locator(".peekview-widget");
  try {
    await peek.first().waitFor({ timeout: seconds(20) });
  } catch (err) {
    const notes = await page.locator(".notifications-toasts").allInnerTexts();
    throw new Error(`${what}: no references peek (notifications: ${notes.join(" | ")})`);
  }
  const rows = peek.locator(".ref-tree .monaco-list-row");
  await rows.first().waitFor({ timeout: seconds(20) });
  await waitFor("SKILL.md and usage.md in the references", async () => {
    const text = (await rows.allInnerTexts()).join("\n");
    return text.includes("SKILL.md") && text.includes("usage.md");
  }, seconds(20));
  const title = (await peek.locator(".peekview-title").first().innerText()).replace(/\s+/g, " ");
  const rowTexts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
  return { peek, title, rows: rowTexts };
}

/** The code lens drawn just above the cursor's line. */
async function lensAboveCursor(page) {
  const cursorLine = page.locator(".monaco-editor .view-overlays .current-line").first();
  await cursorLine.waitFor({ timeout: seconds(10) });
  const lineBox = await cursorLine.boundingBox();
  let best;
  for (const lens of await page.locator(".monaco-editor .codelens-decoration").all()) {
    const box = await lens.boundingBox();
    if (!box || box.y >= lineBox.y) continue;
    if (!best || box.y > best.box.y) best = { lens, box };
  }
  if (!best || lineBox.y - best.box.y > lineBox.height * 2.5) return undefined;
  return best.lens;
}

main(async (page, { url, workspace, shotDir }) => {
  await openWorkbench(page, url);
  await openFile(page, SCRIPT);
  // Room for the lens, the peek and the rename box in the screenshots.
  await runCommand(page, "View: Toggle Primary Side Bar Visibility");
  await runCommand(page, "View: Toggle Minimap");
  const at = locate(workspace, SCRIPT, DEFINITION);
  const option = { line: at.line, column: at.column + 'collect.add_argument("'.length + 3 };
  await goTo(page, option);

  // 1) The code lens above collect's add_argument("--topic").
  let lens;
  await waitFor("a code lens above the add_argument line", async () => {
    lens = await lensAboveCursor(page);
    return lens !== undefined && /commands? in/.test(await lens.innerText());
  }, seconds(60));
  const lensText = (await lens.innerText()).trim();
  if (!LENS.test(lensText)) throw new Error(`code lens reads "${lensText}", expected ${LENS}`);
  ok(`code lens above ${DEFINITION}: "${lensText}"`);

  // 2) Clicking it opens the references peek (the client command easel-ls.showReferences).
  await lens.locator("a", { hasText: "commands" }).first().click();
  await parkMouse(page);
  const fromLens = await expectPeek(page, "clicking the code lens");
  log(`peek "${fromLens.title}": ${fromLens.rows.join(" / ")}`);
  ok("the lens opens the references peek with SKILL.md and usage.md");
  await page.waitForTimeout(600); // the peek's preview editor settles
  await page.screenshot({ path: path.join(shotDir, "vscode-codelens.png") });
  await page.keyboard.press("Escape");
  await fromLens.peek.first().waitFor({ state: "hidden", timeout: seconds(10) });

  // 3) Shift+F12 (Find All References... peek) on the option lists the SKILL.md uses.
  await goTo(page, option);
  await page.keyboard.press("Shift+F12");
  const fromKey = await expectPeek(page, "Shift+F12");
  log(`peek "${fromKey.title}": ${fromKey.rows.join(" / ")}`);
  // VS Code asks with includeDeclaration: the four uses and the add_argument itself.
  if (!/References \(5\)/.test(fromKey.title) || !fromKey.rows.some((r) => r.includes("digest.py"))) {
    throw new Error(`Shift+F12 peek: "${fromKey.title}" ${fromKey.rows.join(" / ")}; expected 5`);
  }
  ok(`Shift+F12 lists the uses: ${fromKey.title}`);
  await page.keyboard.press("Escape");
  await fromKey.peek.first().waitFor({ state: "hidden", timeout: seconds(10) });

  // 4) F2 renames the option: the box opens on it, the new name goes in, Enter applies.
  await goTo(page, option);
  await page.keyboard.press("F2");
  const input = page.locator(".rename-box input").first();
  await input.waitFor({ timeout: seconds(20) });
  const offered = await input.inputValue();
  log(`rename box offers "${offered}"`);
  if (!offered.includes("topic")) throw new Error(`rename box offers "${offered}"`);
  ok(`F2 opens the rename box on ${offered}`);
  // Typed like a person once the box has settled: it takes focus and selects the name a moment
  // after it shows, and keys sent before that go to the editor or are overwritten.
  await waitFor("the rename box to take focus", async () =>
    input.evaluate((el) => el === document.activeElement), seconds(10));
  await page.waitForTimeout(300);
  await input.press("Control+A");
  await input.pressSequentially(NEW, { delay: 20 });
  if ((await input.inputValue()) !== NEW) throw new Error(`rename box holds ${await input.inputValue()}`);
  await parkMouse(page);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shotDir, "vscode-rename.png") });
  await input.press("Enter");
  await waitFor(`the script to read ${NEW}`, async () =>
    (await editorText(page)).includes(`add_argument("${NEW}"`), seconds(20));
  ok(`the script's add_argument now reads ${NEW}`);

  // 5) Save everything the rename touched; the docs on disk hold the new option.
  await runCommand(page, "File: Save All");
  const read = (rel) => fs.readFileSync(path.join(workspace, rel), "utf8");
  await waitFor("the renamed option in SKILL.md, usage.md and the script on disk", async () =>
    read(SKILL).includes(`collect ${NEW} `) &&
    !read(SKILL).includes("collect --top") &&
    read(REFERENCE).includes(`collect ${NEW} `) &&
    read(SCRIPT).includes(`collect.add_argument("${NEW}"`), seconds(30));
  ok(`SKILL.md and references/usage.md on disk call collect ${NEW}`);

  // The result, for people: SKILL.md with the renamed option in its commands.
  await openFile(page, SKILL);
  const renamed = locate(workspace, SKILL, `collect ${NEW} <`);
  await goTo(page, { line: renamed.line, column: renamed.column + "collect --".length });
  await waitFor("SKILL.md's editor to show the new option", async () =>
    (await editorText(page)).includes(`collect ${NEW} `), seconds(10));
  await parkMouse(page);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(shotDir, "vscode-rename-result.png") });
});
