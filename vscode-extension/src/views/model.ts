// The data behind the Easel views, free of the VS Code API so test/views.test.js can run it in
// plain Node: the shapes of the server's `easel/skills` and `easel/projects` answers, how the
// trees group and label them, and how the pipeline lays steps out across the layer lanes.

/** The pipeline layers in order, then the cross-cutting one. */
export const LAYERS = ["discover", "plan", "produce", "publish", "attribute", "general"] as const;
/** The lanes a pipeline always draws; `general` (and any other layer) only when a step has it. */
export const PIPELINE_LANES = ["discover", "plan", "produce", "publish", "attribute"] as const;
export const NO_LAYER = "no layer";

export interface FindingCounts {
  error: number;
  warning: number;
  information: number;
  hint: number;
}

export interface SkillInfo {
  name: string;
  layer: string | null;
  layerText: string | null;
  description: string | null;
  uri: string;
  skillMd: string;
  findings: FindingCounts;
  scripts: string[];
  references: string[];
  tests: string[];
}

export interface SkillsResult {
  layers: string[];
  skills: SkillInfo[];
}

export interface FileRef {
  path: string;
  uri: string;
  exists: boolean;
  image: boolean;
}

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface StepInfo {
  index: number;
  layer: string | null;
  skill: string | null;
  status: string | null;
  at: string | null;
  summary: string | null;
  outputs: FileRef[];
  range: LspRange | null;
}

export interface ProjectInfo {
  topic: string | null;
  uri: string;
  manifest: string;
  title: string | null;
  kind: string | null;
  status: string | null;
  platform: string | null;
  summary: string | null;
  updated: string | null;
  cover: FileRef | null;
  deliverables: FileRef[];
  steps: StepInfo[];
  error: string | null;
}

export interface ProjectsResult {
  projects: ProjectInfo[];
}

// -- skills by layer ------------------------------------------------------------------------

export interface LayerGroup {
  /** The layer name, or NO_LAYER for skills without a (known) layer. */
  layer: string;
  skills: SkillInfo[];
}

/** The layers in the server's order (the pipeline order when it sends none), each with its
 * skills by name; skills whose layer is missing or unknown go to a last "no layer" group. */
export function groupSkills(result: SkillsResult): LayerGroup[] {
  const layers = result.layers?.length ? result.layers : [...LAYERS];
  const groups = layers.map((layer) => ({ layer, skills: [] as SkillInfo[] }));
  const byLayer = new Map(groups.map((g) => [g.layer, g]));
  const unplaced: SkillInfo[] = [];
  for (const skill of result.skills ?? []) {
    const group = skill.layer ? byLayer.get(skill.layer) : undefined;
    (group ? group.skills : unplaced).push(skill);
  }
  if (unplaced.length) groups.push({ layer: NO_LAYER, skills: unplaced });
  for (const group of groups) group.skills.sort((a, b) => a.name.localeCompare(b.name));
  return groups;
}

export type Severity = "error" | "warning" | "information" | "clean";

export function worstSeverity(counts: FindingCounts | undefined): Severity {
  if (!counts) return "clean";
  if (counts.error > 0) return "error";
  if (counts.warning > 0) return "warning";
  if (counts.information > 0) return "information";
  return "clean";
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "2 errors · 1 warning"; "" when the skill has nothing above a hint. */
export function findingBadge(counts: FindingCounts | undefined): string {
  if (!counts) return "";
  const parts: string[] = [];
  if (counts.error) parts.push(plural(counts.error, "error", "errors"));
  if (counts.warning) parts.push(plural(counts.warning, "warning", "warnings"));
  if (counts.information) parts.push(`${counts.information} info`);
  return parts.join(" · ");
}

export function countLabel(count: number, one: string, many: string): string {
  return count ? plural(count, one, many) : `no ${many}`;
}

/** The first sentence of a description, for a tree row (the tooltip has all of it). */
export function shortDescription(text: string | null, max = 60): string {
  if (!text) return "";
  const flat = text.replace(/\s+/g, " ").trim();
  const sentence = flat.split(/(?<=[。！？.!?；;])\s*/u)[0] ?? flat;
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}

// -- projects -------------------------------------------------------------------------------

export function projectLabel(project: ProjectInfo): string {
  return project.title || project.topic || lastSegment(project.uri);
}

/** "draft · xhs-note": status and kind, whichever are set. */
export function projectDescription(project: ProjectInfo): string {
  if (project.error) return "broken manifest";
  return [project.status, project.kind].filter(Boolean).join(" · ");
}

/** The number people count with: the server's index is 0-based. */
export function stepNumber(step: StepInfo): number {
  return step.index + 1;
}

/** "1. plan · xhs-note-plan · done". */
export function stepLabel(step: StepInfo): string {
  const parts = [step.layer || "?", step.skill || "?", step.status || "done"];
  return `${stepNumber(step)}. ${parts.join(" · ")}`;
}

export function isFailed(step: StepInfo): boolean {
  return step.status === "failed";
}

/** The last path segment of a URI, decoded. */
export function lastSegment(uri: string): string {
  const segment = uri.replace(/\/+$/, "").split("/").pop() ?? uri;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// -- the pipeline picture -------------------------------------------------------------------

export interface Lane {
  layer: string;
  /** Indexes into `steps` of the steps drawn in this lane. */
  steps: number[];
}

export interface PipelineLayout {
  lanes: Lane[];
  /** One column per step, in the order the manifest records them. */
  columns: number;
  /** For each step (by position in `steps`): its lane index and column. */
  cells: { lane: number; column: number }[];
}

/** The five pipeline lanes always, then `general` and any other layer a step names (a step
 * without a layer goes to a "no layer" lane); each step gets its own column, left to right. */
export function layoutPipeline(steps: StepInfo[]): PipelineLayout {
  const lanes: Lane[] = PIPELINE_LANES.map((layer) => ({ layer, steps: [] }));
  const extra = new Map<string, Lane>();
  const laneOf = (layer: string): number => {
    const fixed = lanes.findIndex((lane) => lane.layer === layer);
    if (fixed >= 0) return fixed;
    let lane = extra.get(layer);
    if (!lane) {
      lane = { layer, steps: [] };
      extra.set(layer, lane);
      lanes.push(lane);
    }
    return lanes.indexOf(lane);
  };
  // `general` comes before other unknown lanes, whatever order the steps name them in.
  if (steps.some((s) => s.layer === "general")) laneOf("general");
  const cells = steps.map((step, column) => {
    const lane = laneOf(step.layer || NO_LAYER);
    lanes[lane]!.steps.push(column);
    return { lane, column };
  });
  return { lanes, columns: steps.length, cells };
}

/** "discover → plan → produce": the layers the steps went through, repeats folded. */
export function pipelinePath(steps: StepInfo[]): string {
  const path: string[] = [];
  for (const step of steps) {
    const layer = step.layer || NO_LAYER;
    if (path[path.length - 1] !== layer) path.push(layer);
  }
  return path.join(" → ");
}
