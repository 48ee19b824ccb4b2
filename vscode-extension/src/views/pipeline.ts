// "Easel: Show Pipeline": one webview per project, drawing its steps across the layer lanes.
// The page is static HTML from pipelineHtml.ts plus media/pipeline.js (connectors and clicks);
// it may load only the project's own files and the extension's media, and open only the files
// it was given (by index).
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { FileRef, ProjectInfo, projectLabel, ProjectsResult } from "./model";
import { renderPipeline } from "./pipelineHtml";

type Message = { type: "open"; file: number } | { type: "reveal"; step: number };

export class PipelinePanels implements vscode.Disposable {
  private readonly panels = new Map<string, PipelinePanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly projects: () => Promise<ProjectsResult | undefined>,
  ) {}

  async show(manifest: vscode.Uri): Promise<void> {
    const key = manifest.toString();
    const open = this.panels.get(key);
    if (open) {
      open.panel.reveal();
      await open.update();
      return;
    }
    const panel = new PipelinePanel(manifest, this.extensionUri, this.projects);
    this.panels.set(key, panel);
    panel.panel.onDidDispose(() => this.panels.delete(key));
    await panel.update();
  }

  refreshAll(): void {
    for (const panel of this.panels.values()) void panel.update();
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.panel.dispose();
  }
}

/** Same resource whatever the percent-encoding: the server and VS Code encode differently. */
export function sameUri(a: string, b: vscode.Uri): boolean {
  const parsed = vscode.Uri.parse(a);
  return parsed.toString() === b.toString() || (parsed.scheme === "file" && parsed.fsPath === b.fsPath);
}

class PipelinePanel {
  readonly panel: vscode.WebviewPanel;
  private files: FileRef[] = [];
  private project: ProjectInfo | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private pending: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private drawn = 0; // the latest update's number: an older answer arriving late is dropped

  constructor(
    private readonly manifest: vscode.Uri,
    private readonly extensionUri: vscode.Uri,
    private readonly projects: () => Promise<ProjectsResult | undefined>,
  ) {
    const folder = vscode.Uri.joinPath(manifest, "..");
    // The lanes need the width of an editor group; files it opens go beside it.
    this.panel = vscode.window.createWebviewPanel(
      "easel.pipeline",
      `Pipeline: ${folder.path.split("/").pop() ?? ""}`, // Uri.path is already decoded
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        // The cover, thumbnails and outputs live in the project folder; CSS and JS in media/.
        localResourceRoots: [folder, vscode.Uri.joinPath(extensionUri, "media")],
      },
    );
    this.panel.iconPath = {
      light: vscode.Uri.joinPath(extensionUri, "media", "easel-light.svg"),
      dark: vscode.Uri.joinPath(extensionUri, "media", "easel-dark.svg"),
    };
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(folder, ".easel.json"),
    );
    const later = () => this.scheduleUpdate();
    this.disposables.push(
      watcher,
      watcher.onDidChange(later),
      watcher.onDidCreate(later),
      watcher.onDidDelete(later),
      vscode.workspace.onDidSaveTextDocument((doc) => doc.uri.toString() === manifest.toString() && later()),
      this.panel.webview.onDidReceiveMessage((message: Message) => void this.receive(message)),
    );
    this.panel.onDidDispose(() => {
      this.disposed = true;
      clearTimeout(this.pending);
      for (const d of this.disposables) d.dispose();
    });
  }

  private scheduleUpdate(): void {
    clearTimeout(this.pending);
    // A save and the server's change notification arrive together: one redraw.
    this.pending = setTimeout(() => void this.update(), 150);
  }

  async update(): Promise<void> {
    const number = ++this.drawn;
    let result: ProjectsResult | undefined;
    try {
      result = await this.projects();
    } catch (err) {
      if (number === this.drawn && !this.disposed) {
        this.showMessage(`easel-ls could not list the projects: ${err}`);
      }
      return;
    }
    if (number !== this.drawn || this.disposed) return;
    if (!result) {
      this.showMessage("easel-ls is not running.");
      return;
    }
    const project = result.projects.find((p) => sameUri(p.manifest, this.manifest));
    if (!project) {
      this.showMessage(`${this.manifest.fsPath} is not a project manifest under outputs/.`);
      return;
    }
    this.project = project;
    this.panel.title = `Pipeline: ${projectLabel(project)}`;
    const webview = this.panel.webview;
    const media = (name: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "media", name));
    const page = renderPipeline(project, {
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString("hex"),
      styleUri: media("pipeline.css").toString(),
      scriptUri: media("pipeline.js").toString(),
      imageSrc: (file) => webview.asWebviewUri(vscode.Uri.parse(file.uri)).toString(),
    });
    this.files = page.files;
    webview.html = page.html;
  }

  private showMessage(text: string): void {
    this.files = [];
    const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    this.panel.webview.html =
      `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'">` +
      `</head><body><p>${escaped}</p></body></html>`;
  }

  private async receive(message: Message): Promise<void> {
    if (message?.type === "open" && Number.isInteger(message.file)) {
      const file = this.files[message.file];
      if (!file) return;
      await vscode.commands.executeCommand("vscode.open", vscode.Uri.parse(file.uri), {
        viewColumn: vscode.ViewColumn.Beside,
        preview: true,
      });
    } else if (message?.type === "reveal" && Number.isInteger(message.step)) {
      const step = this.project?.steps.find((s) => s.index === message.step);
      if (!step?.range) return;
      const { start, end } = step.range;
      await vscode.window.showTextDocument(this.manifest, {
        viewColumn: vscode.ViewColumn.Beside,
        selection: new vscode.Range(start.line, start.character, end.line, end.character),
      });
    }
  }
}
