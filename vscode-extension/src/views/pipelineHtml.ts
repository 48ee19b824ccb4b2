// The pipeline webview's HTML, built as a string without the VS Code API (unit-tested in
// test/views.test.js). Every workspace text goes through escapeHtml: manifests are untrusted.
// Files are referred to by their index in `files` (data-file), never by a URI the page could
// choose: the panel opens only what it listed.
import {
  FileRef,
  isFailed,
  layoutPipeline,
  pipelinePath,
  ProjectInfo,
  projectLabel,
  StepInfo,
  stepNumber,
} from "./model";

export interface PipelinePage {
  html: string;
  /** What `data-file="N"` in the page opens. */
  files: FileRef[];
}

export interface PageOptions {
  cspSource: string;
  nonce: string;
  styleUri: string;
  scriptUri: string;
  /** The webview URI of an image under the project folder; undefined: not shown. */
  imageSrc(file: FileRef): string | undefined;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: unknown): string {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A class-safe status name: the known ones, else "other". */
export function statusClass(status: string | null): string {
  const known = ["done", "failed", "draft", "ready", "published"];
  return status && known.includes(status) ? status : "other";
}

/** "2026-11-29 17:12" from an ISO time; other text as it is. */
export function shortTime(at: string | null): string {
  if (!at) return "";
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(at);
  return match ? `${match[1]} ${match[2]}` : at;
}

type FileLink = (file: FileRef, inner?: string) => string;

const STATUS_MARK: Record<string, string> = { done: "✓", failed: "✕" };

export function renderPipeline(project: ProjectInfo, options: PageOptions): PipelinePage {
  const files: FileRef[] = [];
  const fileIndex = (file: FileRef): number => {
    files.push(file);
    return files.length - 1;
  };
  const manifest = fileIndex({ path: ".easel.json", uri: project.manifest, exists: true, image: false });
  // `inner`: extra markup inside the link (a thumbnail), already escaped.
  const fileLink = (file: FileRef, inner = ""): string => {
    const name = `<span class="name">${escapeHtml(file.path)}</span>`;
    if (!file.exists) {
      return `<span class="file missing" title="missing on disk">${inner}${name} <em>missing</em></span>`;
    }
    return `<a href="#" class="file" data-file="${fileIndex(file)}">${inner}${name}</a>`;
  };

  const title = escapeHtml(projectLabel(project));
  const body: string[] = [];
  body.push(header(project, options, fileLink, manifest));
  if (project.error) {
    body.push(
      `<section class="broken" role="alert"><h2>This manifest cannot be read</h2>` +
        `<p>${escapeHtml(project.error)}</p>` +
        `<p><a href="#" data-file="${manifest}">Open .easel.json</a></p></section>`,
    );
  } else {
    body.push(flow(project.steps, fileLink));
    body.push(deliverables(project.deliverables, options, fileLink));
  }

  const csp = [
    "default-src 'none'",
    `img-src ${options.cspSource}`,
    `style-src ${options.cspSource}`,
    `script-src 'nonce-${options.nonce}'`,
  ].join("; ");
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp.replace(/[&"<>]/g, (c) => ESCAPES[c]!)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>${title}</title>
</head>
<body>
${body.join("\n")}
<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>
`;
  return { html, files };
}

function header(
  project: ProjectInfo,
  options: PageOptions,
  fileLink: FileLink,
  manifest: number,
): string {
  const cover = project.cover;
  const coverSrc = cover?.exists && cover.image ? options.imageSrc(cover) : undefined;
  const figure = coverSrc
    ? `<figure class="cover"><img src="${escapeHtml(coverSrc)}" alt="cover: ${escapeHtml(cover!.path)}">` +
      `<figcaption>${fileLink(cover!)}</figcaption></figure>`
    : cover
      ? `<figure class="cover none"><span>cover</span><figcaption>${fileLink(cover)}</figcaption></figure>`
      : "";
  const facts: string[] = [];
  if (project.status) {
    facts.push(
      `<span class="pill status-${statusClass(project.status)}">${escapeHtml(project.status)}</span>`,
    );
  }
  for (const fact of [project.kind, project.platform]) {
    if (fact) facts.push(`<span class="fact">${escapeHtml(fact)}</span>`);
  }
  if (project.updated) {
    facts.push(`<span class="fact">updated ${escapeHtml(shortTime(project.updated))}</span>`);
  }
  const topic = project.topic && project.topic !== project.title ? project.topic : "";
  return `<header class="project">
${figure}
<div class="meta">
<h1>${escapeHtml(projectLabel(project))}</h1>
${topic ? `<p class="topic">outputs/${escapeHtml(topic)}</p>` : ""}
<p class="facts">${facts.join(" ")}</p>
${project.summary ? `<p class="summary">${escapeHtml(project.summary)}</p>` : ""}
<p class="actions"><a href="#" data-file="${manifest}">Open .easel.json</a></p>
</div>
</header>`;
}

function flow(steps: StepInfo[], fileLink: FileLink): string {
  const failed = steps.filter(isFailed).length;
  const summary = [
    `${steps.length} ${steps.length === 1 ? "step" : "steps"}`,
    failed ? `${failed} failed` : "",
    pipelinePath(steps),
  ]
    .filter(Boolean)
    .join(" · ");
  const layout = layoutPipeline(steps);
  const columns = Math.max(layout.columns, 1);
  const rows = layout.lanes.map((lane, laneIndex) => {
    const cells: string[] = [];
    for (let column = 0; column < columns; column++) {
      const stepIndex = lane.steps.find((s) => layout.cells[s]!.column === column);
      const step = stepIndex === undefined ? undefined : steps[stepIndex];
      cells.push(step ? `<td>${card(step, fileLink)}</td>` : `<td class="empty"></td>`);
    }
    const used = lane.steps.length ? "" : " unused";
    const label = `<th class="lane-label" scope="row">${escapeHtml(lane.layer)}</th>`;
    return `<tr class="lane${used}" data-lane="${laneIndex}">${label}${cells.join("")}</tr>`;
  });
  const empty = steps.length
    ? ""
    : `<p class="muted">No steps recorded yet: each layer's skill adds one when it runs.</p>`;
  return `<section class="pipeline">
<h2>Pipeline <span class="muted">${escapeHtml(summary)}</span></h2>
${empty}
<div class="flow" id="flow">
<svg class="edges" id="edges" aria-hidden="true"></svg>
<table class="lanes"><tbody>
${rows.join("\n")}
</tbody></table>
</div>
</section>`;
}

function card(step: StepInfo, fileLink: FileLink): string {
  const status = statusClass(step.status ?? "done");
  const mark = STATUS_MARK[status] ?? "•";
  const outputs = step.outputs.length
    ? `<ul class="outputs">${step.outputs.map((o) => `<li>${fileLink(o)}</li>`).join("")}</ul>`
    : "";
  const summary = step.summary ? `<p class="step-summary">${escapeHtml(step.summary)}</p>` : "";
  const at = step.at ? `<p class="step-at">${escapeHtml(shortTime(step.at))}</p>` : "";
  const reveal = step.range
    ? ` data-step="${step.index}" tabindex="0" title="Show in .easel.json"`
    : "";
  const head = [
    `<span class="step-no">${stepNumber(step)}</span>`,
    `<span class="step-skill">${escapeHtml(step.skill || "?")}</span>`,
    `<span class="step-status">${mark} ${escapeHtml(step.status || "done")}</span>`,
  ].join("");
  return `<div class="step status-${status}" id="step-${step.index}"${reveal}>
<div class="step-head">${head}</div>
${summary}${outputs}${at}
</div>`;
}

function deliverables(files: FileRef[], options: PageOptions, fileLink: FileLink): string {
  if (!files.length) {
    return (
      `<section class="deliverables"><h2>Deliverables</h2>` +
      `<p class="muted">None registered yet.</p></section>`
    );
  }
  const items = files.map((file) => {
    const src = file.exists && file.image ? options.imageSrc(file) : undefined;
    const thumb = src ? `<img class="thumb" src="${escapeHtml(src)}" alt="">` : "";
    return `<li>${fileLink(file, thumb)}</li>`;
  });
  return (
    `<section class="deliverables"><h2>Deliverables <span class="muted">${files.length}</span></h2>` +
    `<ul class="files">${items.join("")}</ul></section>`
  );
}
