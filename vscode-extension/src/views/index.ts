// The Easel view container (skills by layer, projects), the pipeline webview and the client
// commands the server's code lenses call. extension.ts owns the language client and hands it
// over with attach() each time one starts.
import * as vscode from "vscode";
import type {
  LanguageClient,
  Location as LspLocation,
  Position as LspPosition,
} from "vscode-languageclient/node";
import { findingBadge, ProjectsResult, SkillsResult } from "./model";
import { PipelinePanels } from "./pipeline";
import { ProjectNode, ProjectsTree, SkillNode, SkillsTree, ViewsSource } from "./trees";

export const SKILLS_REQUEST = "easel/skills";
export const PROJECTS_REQUEST = "easel/projects";
export const WORKSPACE_CHANGED = "easel/workspaceChanged";
const MANIFEST = ".easel.json";

export interface ViewsHost {
  /** The running client, after a start in progress has finished; undefined if none. */
  client(): Promise<LanguageClient | undefined>;
  /** workspace/executeCommand on the server (starting it if needed). */
  runServerCommand(command: string, args: unknown[]): Promise<unknown>;
}

export class EaselViews implements ViewsSource {
  private readonly skillsTree = new SkillsTree(this);
  private readonly projectsTree = new ProjectsTree(this);
  private readonly pipelines: PipelinePanels;

  constructor(
    context: vscode.ExtensionContext,
    private readonly host: ViewsHost,
  ) {
    this.pipelines = new PipelinePanels(context.extensionUri, () => this.projects());
    const skillsView = vscode.window.createTreeView("easel.skills", {
      treeDataProvider: this.skillsTree,
      showCollapseAll: true,
    });
    const projectsView = vscode.window.createTreeView("easel.projects", {
      treeDataProvider: this.projectsTree,
      showCollapseAll: true,
    });
    this.skillsTree.view = skillsView;
    this.projectsTree.view = projectsView;
    const command = vscode.commands.registerCommand;
    context.subscriptions.push(
      skillsView,
      projectsView,
      this.pipelines,
      command("easel-ls.refreshViews", () => this.refresh()),
      command("easel-ls.showPipeline", (target?: unknown) => this.showPipeline(target)),
      command("easel-ls.checkSkill", (node?: SkillNode) => this.checkSkill(node)),
      command("easel-ls.revealInExplorer", (node?: SkillNode | ProjectNode) => revealInExplorer(node)),
      command("easel-ls.openManifest", (node?: ProjectNode) => {
        if (node?.kind !== "project") return;
        void vscode.commands.executeCommand("vscode.open", vscode.Uri.parse(node.project.manifest));
      }),
      command("easel-ls.showReferences", (uri: string, position: LspPosition, locations: LspLocation[]) =>
        this.showReferences(uri, position, locations),
      ),
    );
  }

  /** A client has started: listen to its change notification and fill the views. */
  attach(client: LanguageClient): vscode.Disposable {
    const subscription = client.onNotification(WORKSPACE_CHANGED, () => this.refresh());
    this.refresh();
    return subscription;
  }

  refresh(): void {
    this.skillsTree.refresh();
    this.projectsTree.refresh();
    this.pipelines.refreshAll();
  }

  async skills(): Promise<SkillsResult | undefined> {
    const client = await this.host.client();
    return client?.sendRequest<SkillsResult>(SKILLS_REQUEST, {});
  }

  async projects(): Promise<ProjectsResult | undefined> {
    const client = await this.host.client();
    return client?.sendRequest<ProjectsResult>(PROJECTS_REQUEST, {});
  }

  /** From a code lens (the manifest URI), the Projects tree, the Explorer, or the palette (the
   * active `.easel.json`, else a pick among the projects). */
  private async showPipeline(target?: unknown): Promise<void> {
    let manifest: vscode.Uri | undefined;
    if (typeof target === "string") manifest = vscode.Uri.parse(target);
    else if (target instanceof vscode.Uri) manifest = target;
    else if (isProjectNode(target)) manifest = vscode.Uri.parse(target.project.manifest);
    // A project folder (from the Explorer) means its manifest.
    if (manifest && !manifest.path.endsWith(`/${MANIFEST}`)) {
      manifest = vscode.Uri.joinPath(manifest, MANIFEST);
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    if (!manifest && active?.path.endsWith(`/${MANIFEST}`)) manifest = active;
    manifest ??= await this.pickProject();
    if (manifest) await this.pipelines.show(manifest);
  }

  private async pickProject(): Promise<vscode.Uri | undefined> {
    const result = await this.projects().catch(() => undefined);
    const projects = result?.projects ?? [];
    if (!projects.length) {
      void vscode.window.showInformationMessage(
        "Easel: no projects under outputs/ (a folder with an .easel.json).",
      );
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      projects.map((p) => ({
        label: p.title || p.topic || p.uri,
        description: p.error ? "broken manifest" : [p.status, p.kind].filter(Boolean).join(" · "),
        manifest: p.manifest,
      })),
      { placeHolder: "Show the pipeline of which project?" },
    );
    return picked && vscode.Uri.parse(picked.manifest);
  }

  /** The server checks the whole workspace (it has no per-folder check); the skill's own
   * counts then come from `easel/skills`. */
  private async checkSkill(node?: SkillNode): Promise<void> {
    if (node?.kind !== "skill") return;
    const name = node.skill.name;
    try {
      await vscode.window.withProgress(
        { location: { viewId: "easel.skills" }, title: `Checking ${name}` },
        () => this.host.runServerCommand("easel.checkWorkspace", [node.skill.uri]),
      );
      const result = await this.skills();
      const skill = result?.skills.find((s) => s.uri === node.skill.uri);
      this.refresh();
      const badge = skill ? findingBadge(skill.findings) : "";
      const choice = await vscode.window.showInformationMessage(
        `Easel: ${name}: ${badge || "no problems"}.`,
        ...(badge ? ["Show Problems"] : []),
      );
      if (choice) await vscode.commands.executeCommand("workbench.actions.view.problems");
    } catch (err) {
      void vscode.window.showErrorMessage(`Easel: checking ${name} failed: ${err}`);
    }
  }

  private async showReferences(uri: string, position: LspPosition, locations: LspLocation[]): Promise<void> {
    const client = await this.host.client();
    if (!client) return;
    const p2c = client.protocol2CodeConverter;
    await vscode.commands.executeCommand(
      "editor.action.showReferences",
      vscode.Uri.parse(uri),
      p2c.asPosition(position),
      locations.map((location) => p2c.asLocation(location)),
    );
  }
}

function isProjectNode(value: unknown): value is ProjectNode & { kind: "project" } {
  return typeof value === "object" && value !== null && (value as ProjectNode).kind === "project";
}

function revealInExplorer(node?: SkillNode | ProjectNode): void {
  let uri: string | undefined;
  if (node?.kind === "skill") uri = node.skill.uri;
  else if (node?.kind === "project") uri = node.project.uri;
  else if (node?.kind === "file") uri = node.file.uri;
  if (uri) void vscode.commands.executeCommand("revealInExplorer", vscode.Uri.parse(uri));
}
