// What the code-server drivers share: launching Debian's headless Chromium with playwright-core,
// the workbench steps (quick open, go to line, command palette) and the pass/fail protocol.
// A driver is `require("./lib").main(async (page, { url, workspace, shotDir }) => {...})`, run as
// `node <driver>.js <url> <workspace-dir> <screenshot-dir>`: it prints "ok   - <check>" per passed
// check and "E2E OK", exits 0 only when all passed; on a failure it saves vscode-failure.png in
// the screenshot dir and exits 1.
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const seconds = (s) => s * 1000;
const started = Date.now();
const log = (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`);
const ok = (m) => console.log(`ok   - ${m}`);

/** 1-based line and column of the first occurrence of `needle` in a workspace file. */
function locate(workspace, relPath, needle) {
  const lines = fs.readFileSync(path.join(workspace, relPath), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`${needle} not found in ${relPath}`);
  return { line: index + 1, column: lines[index].indexOf(needle) + 1 };
}

async function openWorkbench(page, url) {
  log(`goto ${url}`);
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: seconds(60) });
  await page.waitForSelector(".monaco-workbench", { timeout: seconds(90) });
  await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({
    timeout: seconds(60),
  });
  log("workbench visible");
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

/** The visible lines of the first editor, with non-breaking spaces as spaces. */
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

/** Runs `drive(page, {url, workspace, shotDir})` in a fresh headless Chromium and exits. */
function main(drive) {
  const [url, workspace, shotDir] = process.argv.slice(2);
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
      await drive(page, { url, workspace, shotDir });
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
}

module.exports = {
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
};
