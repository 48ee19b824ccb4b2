// Opens the written HTML report in Debian's headless Chromium with playwright-core, offline.
// Usage: node shoot.js <report.html> <screenshot.png>
// Prints one JSON line: console errors, requests that left the file, what the page shows.
const { chromium } = require("playwright-core");

const [file, shot] = process.argv.slice(2);

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const requests = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith("data:")) requests.push(r.url());
  });
  await page.goto(require("url").pathToFileURL(file).href, { waitUntil: "load" });
  const seen = await page.evaluate(() => {
    const card = document.querySelector(".card");
    const cover = document.querySelector("img.cover");
    return {
      title: document.title,
      // The inline style only applies if the policy's hash matches it.
      styled: card ? getComputedStyle(card).borderTopLeftRadius : "",
      charts: document.querySelectorAll("svg.chart").length,
      bars: document.querySelectorAll("svg.chart rect.seg").length,
      barWidths: [...document.querySelectorAll("svg.chart rect.seg")].map(
        (r) => r.getBoundingClientRect().width
      ),
      layerColumns: document.querySelectorAll("svg.layers rect.layer").length,
      pipelines: document.querySelectorAll("svg.pipeline").length,
      failedSteps: document.querySelectorAll("svg.pipeline g.step.failed").length,
      laneLabels: [...document.querySelectorAll("svg.pipeline text.lane-label")].map(
        (t) => t.textContent
      ),
      coverLoaded: cover ? cover.complete && cover.naturalWidth > 0 : false,
      rules: document.querySelectorAll("details.rule").length,
      // The routing matrix shades by class: a shade that the policy blocked would be transparent.
      matrixRows: document.querySelectorAll("table.matrix tbody tr").length,
      matrixShaded: [...document.querySelectorAll("table.matrix td.sim5")].filter(
        (td) => getComputedStyle(td).backgroundColor !== "rgba(0, 0, 0, 0)"
      ).length,
      costRows: document.querySelectorAll("svg.cost-chart g.cost-row").length,
      costWidths: [...document.querySelectorAll("svg.cost-chart rect.cost")].map(
        (r) => r.getBoundingClientRect().width
      ),
    };
  });
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  console.log(JSON.stringify({ errors, requests, ...seen }));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
