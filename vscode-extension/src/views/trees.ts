// The two trees of the Easel view container: skills by layer and the outputs/ projects, both
// filled from the server's `easel/skills` and `easel/projects` answers on every refresh.
import * as vscode from "vscode";
import {
  countLabel,
  FileRef,
  findingBadge,
  groupSkills,
  isFailed,
  LayerGroup,
  NO_LAYER,
  ProjectInfo,
  projectDescription,
  projectLabel,
  ProjectsResult,
  shortDescription,
  SkillInfo,
  SkillsResult,
  StepInfo,
  stepLabel,
  worstSeverity,
} from "./model";
import { shortTime } from "./pipelineHtml";

/** How the trees reach the server: undefined when it is not running (or not installed). */
export interface ViewsSource {
  skills(): Promise<SkillsResult | undefined>;
  projects(): Promise<ProjectsResult | undefined>;
}

const LAYER_ICONS: Record<string, string> = {
  discover: "search",
  plan: "list-ordered",
  produce: "paintcan",
  publish: "rocket",
  attribute: "graph-line",
  general: "tools",
  [NO_LAYER]: "question",
};

const SEVERITY_ICONS = {
  error: new vscode.ThemeIcon("error", new vscode.ThemeColor("problemsErrorIcon.foreground")),
  warning: new vscode.ThemeIcon("warning", new vscode.ThemeColor("problemsWarningIcon.foreground")),
  information: new vscode.ThemeIcon("info", new vscode.ThemeColor("problemsInfoIcon.foreground")),
  clean: new vscode.ThemeIcon("pass", new vscode.ThemeColor("testing.iconPassed")),
};
const FAILED_ICON = SEVERITY_ICONS.error;
const DONE_ICON = SEVERITY_ICONS.clean;

/** Why a tree is empty when the server could not be asked. */
function unavailable(view: vscode.TreeView<unknown>, reason: string | undefined): void {
  view.message = reason;
}

abstract class Tree<T> implements vscode.TreeDataProvider<T> {
  private readonly changed = new vscode.EventEmitter<T | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view?: vscode.TreeView<T>;

  refresh(): void {
    this.changed.fire(undefined);
  }

  abstract getTreeItem(node: T): vscode.TreeItem;
  abstract getChildren(node?: T): Promise<T[]>;

  /** Runs a server request for the root; a failure shows in the view instead of throwing. */
  protected async ask<R>(request: () => Promise<R | undefined>): Promise<R | undefined> {
    try {
      const result = await request();
      if (this.view) unavailable(this.view, result ? undefined : "easel-ls is not running.");
      return result;
    } catch (err) {
      if (this.view) unavailable(this.view, `easel-ls could not list this: ${err}`);
      return undefined;
    }
  }
}

// -- skills by layer ------------------------------------------------------------------------

export type SkillNode =
  | { kind: "layer"; group: LayerGroup }
  | { kind: "skill"; skill: SkillInfo };

export class SkillsTree extends Tree<SkillNode> {
  constructor(private readonly source: ViewsSource) {
    super();
  }

  async getChildren(node?: SkillNode): Promise<SkillNode[]> {
    if (node?.kind === "layer") return node.group.skills.map((skill) => ({ kind: "skill", skill }));
    if (node) return [];
    const result = await this.ask(() => this.source.skills());
    if (!result) return [];
    const groups = groupSkills(result);
    if (this.view) {
      const broken = result.skills.filter((s) => worstSeverity(s.findings) === "error").length;
      this.view.description = countLabel(result.skills.length, "skill", "skills");
      // The activity bar shows this number on the Easel icon.
      this.view.badge = broken
        ? { value: broken, tooltip: `${countLabel(broken, "skill", "skills")} with errors` }
        : undefined;
    }
    // An empty workspace shows the welcome text, not six empty layers.
    return result.skills.length ? groups.map((group) => ({ kind: "layer", group })) : [];
  }

  getTreeItem(node: SkillNode): vscode.TreeItem {
    return node.kind === "layer" ? layerItem(node.group) : skillItem(node.skill);
  }
}

function layerItem(group: LayerGroup): vscode.TreeItem {
  const count = group.skills.length;
  const item = new vscode.TreeItem(
    group.layer,
    count ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
  );
  item.id = `layer:${group.layer}`;
  const broken = group.skills.filter((s) => worstSeverity(s.findings) === "error").length;
  item.description = countLabel(count, "skill", "skills") + (broken ? ` · ${broken} with errors` : "");
  item.iconPath = new vscode.ThemeIcon(LAYER_ICONS[group.layer] ?? "symbol-folder");
  item.contextValue = "easel.layer";
  return item;
}

function skillItem(skill: SkillInfo): vscode.TreeItem {
  const item = new vscode.TreeItem(skill.name, vscode.TreeItemCollapsibleState.None);
  const severity = worstSeverity(skill.findings);
  const badge = findingBadge(skill.findings);
  item.id = `skill:${skill.uri}`;
  // A clean skill shows what it is for; a broken one what is wrong.
  item.description = badge || shortDescription(skill.description);
  item.iconPath = SEVERITY_ICONS[severity];
  item.contextValue = "easel.skill";
  item.command = {
    title: "Open SKILL.md",
    command: "vscode.open",
    arguments: [vscode.Uri.parse(skill.skillMd)],
  };
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown("**").appendText(skill.name).appendMarkdown("**");
  const layer = skill.layer ?? (skill.layerText ? `unknown layer "${skill.layerText}"` : NO_LAYER);
  tip.appendText(` · ${layer}\n\n`);
  if (skill.description) tip.appendText(skill.description.trim()).appendMarkdown("\n\n");
  tip.appendText(badge || "No problems");
  const parts = [
    countLabel(skill.scripts.length, "script", "scripts"),
    countLabel(skill.references.length, "reference", "references"),
    countLabel(skill.tests.length, "test", "tests"),
  ];
  tip.appendText(` · ${parts.join(", ")}`);
  item.tooltip = tip;
  return item;
}

// -- projects -------------------------------------------------------------------------------

export type ProjectNode =
  | { kind: "project"; project: ProjectInfo }
  | { kind: "deliverables"; project: ProjectInfo }
  | { kind: "steps"; project: ProjectInfo }
  | { kind: "step"; project: ProjectInfo; step: StepInfo }
  | { kind: "file"; file: FileRef; parent: string };

export class ProjectsTree extends Tree<ProjectNode> {
  private count = 0;

  constructor(private readonly source: ViewsSource) {
    super();
  }

  async getChildren(node?: ProjectNode): Promise<ProjectNode[]> {
    if (!node) {
      const result = await this.ask(() => this.source.projects());
      const projects = result?.projects ?? [];
      this.count = projects.length;
      if (this.view) {
        this.view.description = result ? countLabel(projects.length, "project", "projects") : undefined;
      }
      return projects.map((project) => ({ kind: "project", project }));
    }
    switch (node.kind) {
      case "project":
        if (node.project.error) return [];
        return [
          { kind: "deliverables", project: node.project },
          { kind: "steps", project: node.project },
        ];
      case "deliverables":
        return node.project.deliverables.map((file) => ({ kind: "file", file, parent: node.project.uri }));
      case "steps":
        return node.project.steps.map((step) => ({ kind: "step", project: node.project, step }));
      case "step":
        return node.step.outputs.map((file) => ({
          kind: "file",
          file,
          parent: `${node.project.uri}#${node.step.index}`,
        }));
      default:
        return [];
    }
  }

  getTreeItem(node: ProjectNode): vscode.TreeItem {
    switch (node.kind) {
      case "project":
        // A small workspace opens with its projects expanded.
        return projectItem(node.project, this.count <= 3);
      case "deliverables": {
        const files = node.project.deliverables;
        const item = new vscode.TreeItem("Deliverables", collapsed(files.length, true));
        item.id = `deliverables:${node.project.uri}`;
        const missing = files.filter((f) => !f.exists).length;
        item.description =
          countLabel(files.length, "file", "files") + (missing ? ` · ${missing} missing` : "");
        item.iconPath = new vscode.ThemeIcon("package");
        return item;
      }
      case "steps": {
        const steps = node.project.steps;
        const item = new vscode.TreeItem("Steps", collapsed(steps.length, true));
        item.id = `steps:${node.project.uri}`;
        const failed = steps.filter(isFailed).length;
        item.description = countLabel(steps.length, "step", "steps") + (failed ? ` · ${failed} failed` : "");
        item.iconPath = new vscode.ThemeIcon("list-ordered");
        return item;
      }
      case "step":
        return stepItem(node.project, node.step);
      case "file":
        return fileItem(node.file, node.parent);
    }
  }
}

function collapsed(children: number, expanded: boolean): vscode.TreeItemCollapsibleState {
  if (!children) return vscode.TreeItemCollapsibleState.None;
  return expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
}

function openManifest(project: ProjectInfo, step?: StepInfo): vscode.Command {
  const options: vscode.TextDocumentShowOptions = { preview: true };
  if (step?.range) {
    const { start, end } = step.range;
    options.selection = new vscode.Range(start.line, start.character, end.line, end.character);
  }
  return {
    title: "Open .easel.json",
    command: "vscode.open",
    arguments: [vscode.Uri.parse(project.manifest), options],
  };
}

function projectItem(project: ProjectInfo, expand: boolean): vscode.TreeItem {
  const label = projectLabel(project);
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown("**").appendText(label).appendMarkdown("**");
  if (project.topic && project.topic !== label) tip.appendText(` · outputs/${project.topic}`);
  if (project.error) {
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = `project:${project.uri}`;
    item.description = `broken manifest: ${project.error}`;
    item.iconPath = SEVERITY_ICONS.error;
    item.contextValue = "easel.project.broken";
    item.command = openManifest(project);
    item.tooltip = tip.appendMarkdown("\n\n").appendText(project.error);
    return item;
  }
  const item = new vscode.TreeItem(label, collapsed(1, expand));
  item.id = `project:${project.uri}`;
  item.description = projectDescription(project);
  const cover = project.cover;
  item.iconPath =
    cover?.exists && cover.image ? vscode.Uri.parse(cover.uri) : new vscode.ThemeIcon("folder-library");
  item.contextValue = "easel.project";
  const facts = [project.status, project.kind, project.platform].filter(Boolean).join(" · ");
  if (facts) tip.appendText(`\n\n${facts}`);
  if (project.summary) tip.appendMarkdown("\n\n").appendText(project.summary);
  if (project.updated) tip.appendMarkdown("\n\n").appendText(`updated ${shortTime(project.updated)}`);
  item.tooltip = tip;
  return item;
}

function stepItem(project: ProjectInfo, step: StepInfo): vscode.TreeItem {
  const item = new vscode.TreeItem(stepLabel(step), collapsed(step.outputs.length, false));
  item.id = `step:${project.uri}#${step.index}`;
  item.iconPath = isFailed(step)
    ? FAILED_ICON
    : step.status === "done"
      ? DONE_ICON
      : new vscode.ThemeIcon("circle-outline");
  item.contextValue = "easel.step";
  item.command = openManifest(project, step);
  // The row is narrow: when and what the step concluded go to the tooltip.
  item.tooltip = [step.summary, shortTime(step.at)].filter(Boolean).join("\n\n") || undefined;
  return item;
}

function fileItem(file: FileRef, parent: string): vscode.TreeItem {
  const uri = vscode.Uri.parse(file.uri);
  const item = new vscode.TreeItem(file.path, vscode.TreeItemCollapsibleState.None);
  item.id = `file:${parent}:${file.path}`;
  if (file.exists) {
    item.resourceUri = uri; // the file icon of the theme
    item.iconPath = vscode.ThemeIcon.File;
    item.command = { title: "Open", command: "vscode.open", arguments: [uri] };
    item.contextValue = "easel.file";
  } else {
    item.description = "missing";
    item.iconPath = SEVERITY_ICONS.warning;
    item.tooltip = `${file.path} is not on disk`;
    item.contextValue = "easel.file.missing";
  }
  return item;
}
