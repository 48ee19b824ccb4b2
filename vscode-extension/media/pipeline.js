// The pipeline page's behaviour: arrows from each step to the next, and clicks on files and
// steps sent to the extension (which opens only the files it listed, by index).
(function () {
  const vscode = acquireVsCodeApi();
  const SVG = "http://www.w3.org/2000/svg";

  function send(target) {
    const file = target.closest("[data-file]");
    if (file) {
      vscode.postMessage({ type: "open", file: Number(file.dataset.file) });
      return true;
    }
    const step = target.closest("[data-step]");
    if (step) {
      vscode.postMessage({ type: "reveal", step: Number(step.dataset.step) });
      return true;
    }
    return false;
  }

  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && send(event.target)) event.preventDefault();
  });
  document.addEventListener("keydown", (event) => {
    const onStep = event.target instanceof Element && event.target.matches("[data-step]");
    if (onStep && (event.key === "Enter" || event.key === " ") && send(event.target)) {
      event.preventDefault();
    }
  });

  function drawEdges() {
    const flow = document.getElementById("flow");
    const svg = document.getElementById("edges");
    if (!flow || !svg) return;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("width", String(flow.scrollWidth));
    svg.setAttribute("height", String(flow.scrollHeight));
    const defs = document.createElementNS(SVG, "defs");
    const marker = document.createElementNS(SVG, "marker");
    for (const [k, v] of Object.entries({
      id: "arrow", viewBox: "0 0 8 8", refX: "7", refY: "4",
      markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse",
    })) marker.setAttribute(k, v);
    const head = document.createElementNS(SVG, "path");
    head.setAttribute("d", "M0,0 L8,4 L0,8 z");
    head.setAttribute("class", "arrowhead");
    marker.appendChild(head);
    defs.appendChild(marker);
    svg.appendChild(defs);

    const origin = flow.getBoundingClientRect();
    const steps = Array.from(flow.querySelectorAll(".step")).sort(
      (a, b) => Number(a.id.slice(5)) - Number(b.id.slice(5)), // id="step-<index>"
    );
    for (let i = 1; i < steps.length; i++) {
      const from = steps[i - 1].getBoundingClientRect();
      const to = steps[i].getBoundingClientRect();
      const x1 = from.right - origin.left + flow.scrollLeft;
      const y1 = from.top + from.height / 2 - origin.top;
      const x2 = to.left - origin.left + flow.scrollLeft - 2;
      const y2 = to.top + to.height / 2 - origin.top;
      const bend = Math.max(24, (x2 - x1) / 2);
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`);
      path.setAttribute("class", steps[i].classList.contains("status-failed") ? "edge to-failed" : "edge");
      path.setAttribute("marker-end", "url(#arrow)");
      svg.appendChild(path);
    }
  }

  drawEdges();
  new ResizeObserver(drawEdges).observe(document.body);
  // Images change the layout once they load.
  for (const img of document.images) img.addEventListener("load", drawEdges);
})();
