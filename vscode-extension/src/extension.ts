import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { findServer, missingServerMessage, ServerCommand } from "./server";
import { EaselViews } from "./views";

const SECTION = "easel-ls";
const INSTALL_URL = "https://pypi.org/project/easel-ls/";
const SKILL_FILES = "**/{SKILL.md,.easel.json}";
const IGNORED_DIRS = "**/{node_modules,.git,.venv}/**";

// SKILL.md, its references, scripts (code lenses and rename of their options) and tests,
// project manifests and outbound text under outputs/.
const DOCUMENT_SELECTOR = [
  { scheme: "file", pattern: "**/SKILL.md" },
  { scheme: "file", pattern: "**/scripts/**/*.py" },
  { scheme: "file", pattern: "**/references/**/*.md" },
  { scheme: "file", pattern: "**/tests/*.{prompt,expected}" },
  { scheme: "file", pattern: "**/outputs/**/.easel.json" },
  { scheme: "file", pattern: "**/outputs/**/*.{md,txt}" },
];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let starting: Promise<void> | undefined;
let views: EaselViews | undefined;
// The server and its libraries in a platform-specific package (scripts/bundle-server.py).
let bundledLibs: string | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Easel LS", { log: true });
  views = new EaselViews(context, { client: runningClient, runServerCommand });
  bundledLibs = context.asAbsolutePath("bundled/libs");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("easel-ls.checkWorkspace", checkWorkspace),
    vscode.commands.registerCommand("easel-ls.restartServer", () => restart()),
    vscode.commands.registerCommand("easel-ls.showOutput", () => output.show(true)),
    vscode.commands.registerCommand("easel-ls.registerDeliverables", registerDeliverables),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server`)) void restart();
      // The server pulls its settings (workspace/configuration) when told they changed.
      else if (event.affectsConfiguration(SECTION) && client?.isRunning()) {
        void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      }
    }),
    // Trust unlocks the commands that run workspace scripts: start again with it.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restart()),
    { dispose: () => void client?.stop() },
  );

  // Activated by a Markdown/JSON file: only start in a workspace that has skills.
  if (await workspaceHasSkills()) {
    await ensureStarted();
    return;
  }
  const watcher = vscode.workspace.createFileSystemWatcher(SKILL_FILES);
  context.subscriptions.push(watcher, watcher.onDidCreate(() => void ensureStarted()));
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

async function workspaceHasSkills(): Promise<boolean> {
  const found = await vscode.workspace.findFiles(SKILL_FILES, IGNORED_DIRS, 1);
  return found.length > 0;
}

/** The client once a start in progress has finished; undefined when none runs. */
async function runningClient(): Promise<LanguageClient | undefined> {
  await starting;
  return client?.isRunning() ? client : undefined;
}

function ensureStarted(): Promise<void> {
  if (client) return Promise.resolve();
  starting ??= start().finally(() => (starting = undefined));
  return starting;
}

async function restart(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) await running.stop().catch((err) => output.appendLine(`stop: ${err}`));
  await ensureStarted();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const { server, tried } = await findServer(
    {
      path: config.get<string>("server.path", ""),
      // `easel-ls server` is the language server; the setting's arguments follow it.
      args: ["server", ...config.get<string[]>("server.args", [])],
    },
    { bundledLibs, pythonInterpreter, trusted: vscode.workspace.isTrusted },
  );
  for (const line of tried) output.appendLine(`Passed over: ${line}`);
  if (!server) {
    await reportMissingServer(tried);
    return;
  }
  output.appendLine(`Starting ${server.command} ${server.args.join(" ")} (${server.detail})`);
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    transport: TransportKind.stdio,
    options: { env: { ...process.env, ...server.env } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    initializationOptions: serverSettings(),
    middleware: {
      workspace: {
        // The server reads section "easel-ls": answer with its own keys only (not the
        // client-side server.* and trace.*), and with trust as VS Code decides it.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return result.map((value, index) =>
            params.items[index]?.section === SECTION ? serverSettings() : value,
          );
        },
      },
    },
  };
  const created = new LanguageClient(SECTION, "Easel LS", serverOptions, clientOptions);
  try {
    await created.start();
    client = created;
    views?.attach(created);
  } catch (err) {
    output.appendLine(`easel-ls failed to start: ${err}`);
    void vscode.window
      .showErrorMessage(`easel-ls failed to start (${describe(server)}).`, "Show Output")
      .then((choice) => choice && output.show(true));
  }
}

/** The server's settings (camelCase, as easel-ls reads them); unset ones are left out. */
function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const settings: Record<string, unknown> = { trustedWorkspace: vscode.workspace.isTrusted };
  for (const key of ["debounceMs", "select", "extendSelect", "ignore", "maxBodyLines", "logLevel"]) {
    const value = config.get(key);
    // Empty lists are the defaults: an empty `select` must not mean "no rules".
    const unset = value === undefined || value === null || (Array.isArray(value) && !value.length);
    if (!unset) settings[key] = value;
  }
  return settings;
}

function describe(server: ServerCommand): string {
  return [server.command, ...server.args].join(" ");
}

async function reportMissingServer(tried: string[]): Promise<void> {
  const message = missingServerMessage(tried);
  output.appendLine(message);
  const choice = await vscode.window.showErrorMessage(message, "How to Install", "Open Settings");
  if (choice === "How to Install") {
    await vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
  } else if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.server`);
  }
}

/** The interpreter selected in the Python extension, if it is installed. */
async function pythonInterpreter(): Promise<string | undefined> {
  const python = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!python) return undefined;
  try {
    const api = python.isActive ? python.exports : await python.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = api.environments?.getActiveEnvironmentPath(resource);
    if (active) {
      const resolved = await api.environments?.resolveEnvironment(active);
      return resolved?.executable?.uri?.fsPath ?? active.path;
    }
    return api.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
  } catch (err) {
    output.appendLine(`Python extension: ${err}`);
    return undefined;
  }
}

/** The parts of the ms-python.python API used here (it ships no types we can depend on). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      env: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

async function runServerCommand(command: string, args: unknown[]): Promise<unknown> {
  await ensureStarted();
  if (!client) throw new Error("easel-ls is not running");
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

async function checkWorkspace(): Promise<void> {
  try {
    const summary = (await runServerCommand("easel.checkWorkspace", [])) as
      | { files?: number; findings?: number }
      | undefined;
    const files = summary?.files ?? "?";
    const findings = summary?.findings ?? "?";
    void vscode.window.showInformationMessage(
      `Easel: checked ${files} files, ${findings} findings.`,
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`Easel: Check Workspace failed: ${err}`);
  }
}

/** Registers the project's unlisted root files in its `.easel.json` (explorer item or editor).
 * In an untrusted workspace the server only uses its packaged manifest code, never the
 * workspace's copy (it is told `trustedWorkspace: false`). */
async function registerDeliverables(target?: vscode.Uri): Promise<void> {
  const uri = target ?? vscode.window.activeTextEditor?.document.uri;
  if (!uri) {
    void vscode.window.showWarningMessage("Easel: open a project's .easel.json first.");
    return;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) await open.save();
  try {
    await runServerCommand("easel.registerDeliverables", [uri.toString()]);
    // The server edits through workspace/applyEdit; keep the disk in step with the editor.
    const edited = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (edited?.isDirty) await edited.save();
  } catch (err) {
    void vscode.window.showErrorMessage(`Easel: Register Deliverables failed: ${err}`);
  }
}
