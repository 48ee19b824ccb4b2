// Drives VS Code (code-server) through the Easel views of issue #16 on the fixture workspace:
// the activity bar's Easel container (Skills by Layer: counts per layer, the broken skill's badge
// and error icon, click opens SKILL.md, "Check This Skill"; Projects: status and kind, the cover
// as icon, deliverables and steps with the failed one marked, the broken manifest with its
// error), the .easel.json code lens opening the pipeline webview (lane labels, the failed step,
// the cover image and an output link, read through the webview's frames; redrawn when the
// manifest changes on disk), the cover hover, and "Reveal in Explorer" on a skill.
// Usage: node drive_views.js <url> <workspace-dir> <screenshot-dir>
// Screenshots: vscode-views.png, vscode-pipeline.png, vscode-hover-cover.png.
const fs = require("fs");
const path = require("path");
const {
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

const PROJECT = "outputs/秋日徒步";
const MANIFEST = `${PROJECT}/.easel.json`;
const LANES = ["discover", "plan", "produce", "publish", "attribute"];
// Layer rows of the fixture: [label, description] (skills sorted by name under each).
const LAYER_ROWS = [
  ["discover", "1 skill"],
  ["plan", "1 skill"],
  ["produce", "1 skill · 1 with errors"],
  ["publish", "1 skill · 1 with errors"],
  ["attribute", "no skills"],
  ["general", "no skills"],
];

/** The view pane whose header reads `title`. */
function pane(page, title) {
  return page.locator(".pane", {
    has: page.locator(".pane-header", { hasText: new RegExp(`^\\s*${title}`, "i") }),
  });
}

/** [label, description] of every visible row of a tree pane. */
async function rows(view) {
  return view.locator(".monaco-list-row").evaluateAll((els) =>
    els.map((el) => [
      (el.querySelector(".label-name")?.textContent ?? "").trim(),
      (el.querySelector(".label-description")?.textContent ?? "").trim(),
    ]),
  );
}

function row(view, label) {
  return view.locator(".monaco-list-row", {
    has: view.page().locator(".label-name", { hasText: new RegExp(`^${escapeRe(label)}$`) }),
  });
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function expectRows(what, view, expected, timeoutMs) {
  let seen = [];
  try {
    await waitFor(
      what,
      async () => {
        seen = await rows(view);
        return expected.every(([l, d]) => seen.some(([sl, sd]) => sl === l && sd === d));
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${err.message}; rows: ${JSON.stringify(seen)}`);
  }
}

/** The webview frame whose document has `selector` (VS Code nests the page in two iframes). */
async function webviewFrame(page, selector, timeoutMs) {
  let found;
  await waitFor(
    `a webview with ${selector}`,
    async () => {
      for (const frame of page.frames()) {
        const count = await frame.locator(selector).count().catch(() => 0);
        if (count) {
          found = frame;
          return true;
        }
      }
      return false;
    },
    timeoutMs,
  );
  return found;
}

async function sideBarWidth(page) {
  return (await page.locator(".part.sidebar").boundingBox()).width;
}

/** Drags the sash on the side bar's right edge until the bar is `width` pixels wide. */
async function setSideBarWidth(page, width) {
  const bar = await page.locator(".part.sidebar").boundingBox();
  const y = bar.y + bar.height / 2;
  await page.mouse.move(bar.x + bar.width, y);
  await page.mouse.down();
  await page.mouse.move(bar.x + width, y, { steps: 8 });
  await page.mouse.up();
  await page.mouse.move(bar.x + width + 400, y); // off the sash and its hover highlight
}

main(async (page, { url, workspace, shotDir }) => {
  await openWorkbench(page, url);

  // 1) The Easel container in the activity bar, with its two trees.
  await page.locator('.activitybar .action-item a[aria-label^="Easel"]').first().click();
  const skills = pane(page, "Skills by Layer");
  const projects = pane(page, "Projects");
  await expectRows("the skills tree's layers", skills, LAYER_ROWS, seconds(60));
  const layerOrder = (await rows(skills)).map(([l]) => l).filter((l) => LAYER_ROWS.some(([n]) => n === l));
  if (layerOrder.join() !== LAYER_ROWS.map(([n]) => n).join()) {
    throw new Error(`layers out of pipeline order: ${layerOrder}`);
  }
  ok(`skills by layer: ${LAYER_ROWS.map(([l, d]) => `${l} (${d})`).join(", ")}`);
  await expectRows(
    "the skills' badges",
    skills,
    [
      ["xhs-publish", "2 errors · 1 warning"],
      ["card-maker", "1 error · 1 warning · 1 info"],
    ],
    seconds(30),
  );
  if (!(await row(skills, "xhs-publish").locator(".codicon-error").count())) {
    throw new Error("xhs-publish has no error icon");
  }
  const clean = row(skills, "note-plan");
  if (!(await clean.locator(".codicon-pass").count())) throw new Error("note-plan is not marked clean");
  ok("xhs-publish shows 2 errors · 1 warning with an error icon; note-plan is clean");

  await expectRows(
    "the projects tree",
    projects,
    [
      ["城郊秋日徒步路线", "draft · xhs-note"],
      ["Deliverables", "2 files"],
      ["Steps", "3 steps · 1 failed"],
      ["spring-picnic", "draft"],
      ["旧草稿", "broken manifest: invalid JSON at line 7, column 3: Expecting value"],
    ].map(([l, d]) => (l === "spring-picnic" ? ["春日野餐清单", d] : [l, d])),
    seconds(30),
  );
  const project = row(projects, "城郊秋日徒步路线");
  const icon = await project
    .locator(".custom-view-tree-node-item-icon")
    .evaluate((el) => getComputedStyle(el).backgroundImage);
  if (!icon.includes("cover.png")) throw new Error(`the project's icon is not its cover: ${icon}`);
  ok("projects: status and kind, the cover as icon, 2 deliverables, 3 steps with 1 failed, the broken manifest");

  await expectRows(
    "the steps",
    projects,
    [
      ["1. discover · note-digest · done", ""],
      ["3. produce · card-maker · failed", ""],
    ],
    seconds(10),
  );
  if (!(await row(projects, "3. produce · card-maker · failed").locator(".codicon-error").count())) {
    throw new Error("the failed step has no error icon");
  }
  ok("steps: 1. discover · note-digest · done … 3. produce · card-maker · failed (error icon)");

  // 2) A click on a skill opens its SKILL.md.
  await row(skills, "xhs-publish").click();
  await page.locator(".tabs-container .tab.active", { hasText: "SKILL.md" }).waitFor({ timeout: seconds(15) });
  await page
    .locator(".breadcrumbs-control", { hasText: "xhs-publish" })
    .first()
    .waitFor({ timeout: seconds(15) });
  ok("clicking xhs-publish opened its SKILL.md");

  // 3) Its context menu checks it and reports the counts. A tree refresh (the server announces
  // the opened file) closes an open context menu: then the menu is opened again.
  const toast = page.locator(".notifications-toasts .notification-list-item-message", {
    hasText: "Easel: xhs-publish: 2 errors · 1 warning.",
  });
  await page.waitForTimeout(1000); // fewer retries: the refresh after the open is over by then
  for (let attempt = 1; ; attempt++) {
    await row(skills, "xhs-publish").click({ button: "right" });
    const item = page.locator(".context-view .action-label", { hasText: "Check This Skill" }).first();
    try {
      // VS Code's menus drop a click that comes too soon after they open: point, then Enter.
      await item.hover({ timeout: seconds(5) });
      await page.keyboard.press("Enter");
      await toast.first().waitFor({ timeout: seconds(10) });
      break;
    } catch (err) {
      const notes = await page.locator(".notifications-toasts").allInnerTexts();
      log(`check attempt ${attempt}: ${err.message.split("\n")[0]} (notifications: ${notes.join(" | ")})`);
      if (attempt === 3) throw new Error("Check This Skill showed no result");
      await page.keyboard.press("Escape");
    }
  }
  ok("Check This Skill: Easel: xhs-publish: 2 errors · 1 warning.");
  await page.keyboard.press("Escape");
  // A wider side bar for the picture, so the badges and the broken manifest's error show whole.
  const narrow = await sideBarWidth(page);
  await setSideBarWidth(page, 470);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shotDir, "vscode-views.png") });
  log("vscode-views.png saved");
  await setSideBarWidth(page, narrow);
  await runCommand(page, "Notifications: Clear All Notifications"); // off the next pictures

  // 4) The manifest's code lens opens the pipeline webview.
  await openFile(page, MANIFEST);
  const lens = page.locator(".codelens-decoration a", { hasText: "discover → plan → produce" });
  await lens.first().waitFor({ timeout: seconds(30) });
  const lensText = (await lens.first().innerText()).trim();
  ok(`code lens: ${lensText}`);
  await lens.first().click();
  const frame = await webviewFrame(page, ".lane-label", seconds(30));
  const lanes = await frame.locator(".lane-label").allInnerTexts();
  const laneNames = lanes.map((l) => l.trim().toLowerCase());
  if (laneNames.join() !== LANES.join()) throw new Error(`lanes: ${laneNames}`);
  const failed = await frame.locator(".step.status-failed .step-skill").allInnerTexts();
  if (failed.join() !== "card-maker") throw new Error(`failed steps: ${failed}`);
  const cover = frame.locator(".cover img");
  await waitFor("the cover image to load", () => cover.evaluate((img) => img.complete && img.naturalWidth > 0), seconds(15));
  const size = await cover.evaluate((img) => [img.naturalWidth, img.naturalHeight]);
  if (size.join("x") !== "150x200") throw new Error(`cover is ${size.join("x")}`);
  const edges = await frame.locator(".edges path.edge").count();
  if (edges !== 2) throw new Error(`${edges} arrows between 3 steps`);
  ok(`pipeline webview: lanes ${laneNames.join(", ")}; failed: card-maker; cover 150x200; ${edges} arrows`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shotDir, "vscode-pipeline.png") });
  log("vscode-pipeline.png saved");

  // An output link opens the file beside the picture.
  await frame.locator(".step.status-done .outputs a", { hasText: "assets/cards.md" }).click();
  await page.locator(".tabs-container .tab.active", { hasText: "cards.md" }).waitFor({ timeout: seconds(15) });
  ok("the step output link opened assets/cards.md");

  // 5) The picture and the tree follow the manifest: the failed step is marked done on disk.
  const manifestPath = path.join(workspace, MANIFEST);
  const manifestText = fs.readFileSync(manifestPath, "utf8");
  fs.writeFileSync(manifestPath, manifestText.replace('"status": "failed"', '"status": "done"'));
  await waitFor(
    "the pipeline to redraw with three done steps",
    async () => {
      const redrawn = await webviewFrame(page, ".lane-label", seconds(10));
      const failedNow = await redrawn.locator(".step.status-failed").count().catch(() => -1);
      const doneNow = await redrawn.locator(".step.status-done").count().catch(() => -1);
      return failedNow === 0 && doneNow === 3;
    },
    seconds(20),
  );
  await expectRows("the projects tree after the edit", projects, [["Steps", "3 steps"]], seconds(20));
  ok("after the manifest changed on disk: the webview and the tree show 3 done steps");

  // 6) Hovering the cover entry of .easel.json shows the image (the webview keeps the keyboard
  // focus: back to the manifest's tab by a click).
  await page.keyboard.press("Control+W"); // cards.md
  await page.locator(".tabs-container .tab", { hasText: ".easel.json" }).first().click();
  await page.mouse.move(1000, 600); // off the tab, whose tooltip would cover the hover
  const coverAt = locate(workspace, MANIFEST, '"cover.png"');
  await goTo(page, { line: coverAt.line, column: coverAt.column + 2 });
  const hoverImage = page.locator(".monaco-hover img");
  const deadline = Date.now() + seconds(30);
  for (;;) {
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I"); // editor.action.showHover
    try {
      await hoverImage.first().waitFor({ timeout: seconds(5) });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`no image in the cover hover: ${err.message.split("\n")[0]}`);
    }
  }
  await waitFor(
    "the hover image to load",
    () => hoverImage.first().evaluate((img) => img.complete && img.naturalWidth > 0),
    seconds(15),
  );
  ok("the cover hover in .easel.json shows the image");
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(shotDir, "vscode-hover-cover.png") });
  log("vscode-hover-cover.png saved");

  // 7) "Reveal in Explorer" on a skill selects its folder in the Explorer.
  await page.keyboard.press("Escape");
  for (let attempt = 1; ; attempt++) {
    await row(skills, "xhs-publish").click({ button: "right" });
    const item = page.locator(".context-view .action-label", { hasText: "Reveal in Explorer" }).first();
    try {
      await item.hover({ timeout: seconds(5) });
      await page.keyboard.press("Enter");
      await page
        .locator(".explorer-folders-view .monaco-list-row.selected", { hasText: "xhs-publish" })
        .first()
        .waitFor({ timeout: seconds(10) });
      break;
    } catch (err) {
      if (attempt === 3) throw new Error(`Reveal in Explorer: ${err.message.split("\n")[0]}`);
      await page.keyboard.press("Escape");
    }
  }
  ok("Reveal in Explorer selected skills/openclaw/xhs-publish");
});
