// Drives VS Code (code-server) in Debian's headless Chromium with playwright-core, against the
// copied fixture workspace. Usage: node drive.js <url> <workspace-dir> <screenshot-dir>
// Prints "ok   - <check>" per passed check and exits 0 only when all passed; on a failure it
// saves vscode-failure.png in the screenshot dir and exits 1.
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const [url, workspace, shotDir] = process.argv.slice(2);
const SKILL = "skills/openclaw/card-maker/SKILL.md";
const MANIFEST = "outputs/spring-picnic/.easel.json";
const UNREGISTERED = "card_2.svg";
const seconds = (s) => s * 1000;
const started = Date.now();
const log = (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`);
const ok = (m) => console.log(`ok   - ${m}`);

/** 1-based line and column of the first occurrence of `needle` in a workspace file. */
function locate(relPath, needle) {
  const lines = fs.readFileSync(path.join(workspace, relPath), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`${needle} not found in ${relPath}`);
  return { line: index + 1, column: lines[index].indexOf(needle) + 1 };
}

async function openFile(page, relPath) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: seconds(30) });
  await input.fill(relPath);
  const row = page.locator(".quick-input-list .monaco-list-row", {
    hasText: path.basename(relPath),
  });
  await row.first().waitFor({ timeout: seconds(30) });
  await page.keyboard.press("Enter");
  await page
    .locator(".tabs-container .tab.active", { hasText: path.basename(relPath) })
    .waitFor({ timeout: seconds(30) });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: seconds(30) });
}

async function goTo(page, { line, column }) {
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: seconds(10) });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
}

async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: seconds(10) });
  await input.fill(`>${title}`);
  await page
    .locator(".quick-input-list .monaco-list-row", { hasText: title })
    .first()
    .waitFor({ timeout: seconds(30) });
  await page.keyboard.press("Enter");
}

/** Triggers completion until an item with `label` shows: the first request can reach a
 * language server that is still starting and come back empty. */
async function expectSuggestion(page, label, timeoutMs) {
  const item = page.locator(".suggest-widget .monaco-list-row", { hasText: label });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press("Control+Space");
    try {
      await item.first().waitFor({ timeout: seconds(5) });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await page.keyboard.press("Escape");
    }
  }
}

async function editorText(page) {
  return (await page.locator(".monaco-editor .view-lines").first().innerText()).replace(
    /\u00a0/g,
    " ",
  );
}

async function waitFor(what, predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function run(page) {
  log(`goto ${url}`);
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: seconds(60) });
  await page.waitForSelector(".monaco-workbench", { timeout: seconds(90) });
  await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({
    timeout: seconds(60),
  });
  log("workbench visible");

  // 1) CM002 for the drifted option: a squiggle and a Problems entry with the code.
  const drift = locate(SKILL, "--sise");
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
  const render = locate(SKILL, "--theme paper --size 3x4");
  await goTo(page, { line: render.line, column: 1 });
  await page.keyboard.press("End");
  await page.keyboard.type(" --fo");
  await expectSuggestion(page, "--footer", seconds(30));
  ok("completion offers render's --footer");
  await page.keyboard.press("Escape");

  // 4) "Easel: Register Deliverables" on a manifest with an unlisted root file.
  await openFile(page, MANIFEST);

  // 4a) The shipped JSON Schema drives completion in .easel.json: the status values.
  const status = locate(MANIFEST, '"draft"');
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
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => log(`pageerror: ${e.message}`));
  let passed = false;
  try {
    await run(page);
    passed = true;
  } catch (e) {
    log(`FAILED: ${e.message.split("\n")[0]}`);
    await page.screenshot({ path: path.join(shotDir, "vscode-failure.png") }).catch(() => {});
  } finally {
    await browser.close();
  }
  log(passed ? "E2E OK" : "E2E FAILED");
  process.exit(passed ? 0 : 1);
})();
