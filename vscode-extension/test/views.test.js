// The Easel views' pure logic (src/views/model.ts, src/views/pipelineHtml.ts): grouping skills
// by layer, tree labels, the pipeline's lane layout and its HTML. Bundled here with esbuild,
// since those modules are TypeScript and import nothing from VS Code.
const assert = require("node:assert/strict");
const path = require("node:path");
const { test } = require("node:test");
const esbuild = require("esbuild");

const root = path.join(__dirname, "..");
function load(entry) {
  const outfile = path.join(root, "dist", "test", `${path.basename(entry, ".ts")}.js`);
  esbuild.buildSync({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile,
    logLevel: "warning",
  });
  return require(outfile);
}
const model = load("src/views/model.ts");
const page = load("src/views/pipelineHtml.ts");

const counts = (error = 0, warning = 0, information = 0, hint = 0) => ({ error, warning, information, hint });
const skill = (name, layer, findings = counts(), extra = {}) => ({
  name,
  layer,
  layerText: layer,
  description: `${name} does one thing.`,
  uri: `file:///ws/skills/${name}`,
  skillMd: `file:///ws/skills/${name}/SKILL.md`,
  findings,
  scripts: [],
  references: [],
  tests: [],
  ...extra,
});
const file = (p, exists = true, image = false) => ({
  path: p,
  uri: `file:///ws/outputs/t/${encodeURI(p)}`,
  exists,
  image,
});
const step = (index, layer, skillName, status = "done", outputs = []) => ({
  index,
  layer,
  skill: skillName,
  status,
  at: "2026-11-29T17:12:38+00:00",
  summary: null,
  outputs,
  range: { start: { line: 10 + index, character: 4 }, end: { line: 12 + index, character: 5 } },
});

test("skills are grouped by layer in the server's order, by name, unplaced ones last", () => {
  const groups = model.groupSkills({
    layers: ["discover", "plan", "produce", "publish", "attribute", "general"],
    skills: [
      skill("xhs-publish", "publish"),
      skill("card-maker", "produce"),
      skill("alpha-maker", "produce"),
      skill("loose", null),
      skill("typo", null, counts(1), { layerText: "prodce" }),
    ],
  });
  assert.deepEqual(
    groups.map((g) => [g.layer, g.skills.map((s) => s.name)]),
    [
      ["discover", []],
      ["plan", []],
      ["produce", ["alpha-maker", "card-maker"]],
      ["publish", ["xhs-publish"]],
      ["attribute", []],
      ["general", []],
      ["no layer", ["loose", "typo"]],
    ],
  );
});

test("without layers from the server the pipeline order is used, and no empty 'no layer' group", () => {
  const groups = model.groupSkills({ layers: [], skills: [skill("a", "general")] });
  assert.deepEqual(groups.map((g) => g.layer), [...model.LAYERS]);
  assert.equal(groups.at(-1).skills[0].name, "a");
});

test("the badge counts errors, warnings and info, and the worst severity picks the icon", () => {
  assert.equal(model.findingBadge(counts(2, 1)), "2 errors · 1 warning");
  assert.equal(model.findingBadge(counts(1, 0, 3)), "1 error · 3 info");
  assert.equal(model.findingBadge(counts(0, 2)), "2 warnings");
  assert.equal(model.findingBadge(counts(0, 0, 0, 4)), ""); // hints are not problems
  assert.equal(model.worstSeverity(counts(1, 5)), "error");
  assert.equal(model.worstSeverity(counts(0, 5)), "warning");
  assert.equal(model.worstSeverity(counts(0, 0, 1)), "information");
  assert.equal(model.worstSeverity(counts(0, 0, 0, 1)), "clean");
});

test("a clean skill's row shows the first sentence of its description", () => {
  assert.equal(model.shortDescription("把脚本渲染成卡片。适用场景：出图。"), "把脚本渲染成卡片。");
  assert.equal(model.shortDescription("One line.\n  Two."), "One line.");
  assert.equal(model.shortDescription("x".repeat(80), 10), "xxxxxxxxx…");
  assert.equal(model.shortDescription(null), "");
});

test("project and step labels", () => {
  const project = {
    topic: "秋日徒步",
    uri: "file:///ws/outputs/%E7%A7%8B%E6%97%A5%E5%BE%92%E6%AD%A5",
    manifest: "file:///ws/outputs/x/.easel.json",
    title: null,
    kind: "xhs-note",
    status: "draft",
    steps: [],
    deliverables: [],
    error: null,
  };
  assert.equal(model.projectLabel(project), "秋日徒步");
  assert.equal(model.projectLabel({ ...project, title: "秋日徒步路线" }), "秋日徒步路线");
  assert.equal(model.projectLabel({ ...project, topic: null }), "秋日徒步"); // from the folder URI
  assert.equal(model.projectDescription(project), "draft · xhs-note");
  assert.equal(model.projectDescription({ ...project, kind: null }), "draft");
  assert.equal(model.projectDescription({ ...project, error: "bad JSON" }), "broken manifest");
  assert.equal(model.stepLabel(step(0, "plan", "xhs-note-plan")), "1. plan · xhs-note-plan · done");
  assert.equal(model.stepLabel(step(2, "produce", "card-maker", "failed")), "3. produce · card-maker · failed");
});

test("the five lanes are always drawn; general and other layers only when a step has them", () => {
  const plain = model.layoutPipeline([step(0, "discover", "a"), step(1, "produce", "b")]);
  assert.deepEqual(plain.lanes.map((l) => l.layer), ["discover", "plan", "produce", "publish", "attribute"]);
  assert.equal(plain.columns, 2);
  assert.deepEqual(plain.cells, [
    { lane: 0, column: 0 },
    { lane: 2, column: 1 },
  ]);

  const mixed = model.layoutPipeline([
    step(0, "plan", "a"),
    step(1, "bogus", "b"),
    step(2, "general", "c"),
    step(3, "plan", "d"),
    step(4, null, "e"),
  ]);
  assert.deepEqual(
    mixed.lanes.map((l) => [l.layer, l.steps]),
    [
      ["discover", []],
      ["plan", [0, 3]],
      ["produce", []],
      ["publish", []],
      ["attribute", []],
      ["general", [2]],
      ["bogus", [1]],
      ["no layer", [4]],
    ],
  );
  assert.deepEqual(mixed.cells.map((c) => c.column), [0, 1, 2, 3, 4]);
  assert.equal(model.pipelinePath([step(0, "plan", "a"), step(1, "plan", "b"), step(2, "produce", "c")]), "plan → produce");
});

const options = {
  cspSource: "https://webview.example",
  nonce: "n0nce",
  styleUri: "https://webview.example/media/pipeline.css",
  scriptUri: "https://webview.example/media/pipeline.js",
  imageSrc: (f) => `https://webview.example/file${new URL(f.uri).pathname}`,
};
const project = (extra = {}) => ({
  topic: "t",
  uri: "file:///ws/outputs/t",
  manifest: "file:///ws/outputs/t/.easel.json",
  title: "Autumn <b>hike</b>",
  kind: "xhs-note",
  status: "draft",
  platform: "小红书",
  summary: 'a "quoted" & <i>summary</i>',
  updated: "2026-11-30T09:00:00+00:00",
  cover: file("cover.png", true, true),
  deliverables: [file("cover.png", true, true), file("note.md")],
  steps: [
    step(0, "plan", "xhs-note-plan", "done", [file("note.md"), file("assets/gone.md", false)]),
    step(1, "produce", "<img src=x onerror=alert(1)>", "failed"),
  ],
  error: null,
  ...extra,
});

test("the page escapes every workspace text and has a strict CSP with the nonce", () => {
  const { html } = page.renderPipeline(project(), options);
  assert.ok(!html.includes("<b>hike</b>") && html.includes("Autumn &lt;b&gt;hike&lt;/b&gt;"));
  assert.ok(!html.includes("<img src=x") && html.includes("&lt;img src=x onerror=alert(1)&gt;"));
  assert.ok(html.includes("a &quot;quoted&quot; &amp; &lt;i&gt;summary&lt;/i&gt;"));
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)[1];
  assert.equal(
    csp,
    "default-src 'none'; img-src https://webview.example; style-src https://webview.example; script-src 'nonce-n0nce'",
  );
  // The only script is the nonce'd media/pipeline.js; nothing inline, no inline styles.
  assert.deepEqual(html.match(/<script[^>]*>/g), [`<script nonce="n0nce" src="${options.scriptUri}">`]);
  assert.ok(!/\sstyle=/.test(html) && !html.includes("<style"));
  assert.ok(!/(src|href)="http:/.test(html));
});

test("files are opened by index into the page's list; missing outputs are not links", () => {
  const { html, files } = page.renderPipeline(project(), options);
  const indexes = [...html.matchAll(/data-file="(\d+)"/g)].map((m) => Number(m[1]));
  assert.ok(indexes.length >= 4);
  for (const i of indexes) assert.ok(files[i], `data-file=${i} has a file`);
  assert.equal(files[0].uri, "file:///ws/outputs/t/.easel.json");
  assert.ok(html.includes('<a href="#" data-file="0">Open .easel.json</a>'));
  const listed = new Set(indexes.map((i) => files[i].path));
  assert.deepEqual([...listed].sort(), [".easel.json", "cover.png", "note.md"]);
  assert.ok(html.includes('<span class="file missing" title="missing on disk"><span class="name">assets/gone.md</span> <em>missing</em></span>'));
});

test("lanes, a failed step, the cover and step reveal in the page", () => {
  const { html } = page.renderPipeline(project(), options);
  const lanes = [...html.matchAll(/<th class="lane-label" scope="row">([^<]*)</g)].map((m) => m[1]);
  assert.deepEqual(lanes, ["discover", "plan", "produce", "publish", "attribute"]);
  assert.match(html, /<div class="step status-failed" id="step-1" data-step="1"/);
  assert.match(html, /✕ failed/);
  assert.match(html, /<div class="step status-done" id="step-0" data-step="0"/);
  assert.ok(html.includes('<img src="https://webview.example/file/ws/outputs/t/cover.png" alt="cover: cover.png">'));
  assert.match(html, /2 steps · 1 failed · plan → produce/);
  // A cover that is missing is named, not drawn.
  const noCover = page.renderPipeline(project({ cover: file("cover.png", false, true) }), options).html;
  assert.ok(!noCover.includes("alt=\"cover"));
  assert.match(noCover, /cover\.png<\/span> <em>missing<\/em>/);
});

test("a broken manifest shows its error and a way to open it, and no lanes", () => {
  const { html, files } = page.renderPipeline(
    project({ error: "line 3: Expecting ',' <here>", steps: [], deliverables: [], cover: null }),
    options,
  );
  assert.ok(html.includes("line 3: Expecting &#39;,&#39; &lt;here&gt;"));
  assert.ok(!html.includes("lane-label"));
  assert.deepEqual(files.map((f) => f.path), [".easel.json"]);
});

test("status names become classes only from a known list", () => {
  assert.equal(page.statusClass("failed"), "failed");
  assert.equal(page.statusClass('x" onmouseover="y'), "other");
  assert.equal(page.statusClass(null), "other");
  assert.equal(page.shortTime("2026-11-29T17:12:38+00:00"), "2026-11-29 17:12");
  assert.equal(page.shortTime("yesterday"), "yesterday");
});
