// Finds the easel-ls server command: the setting, then PATH, then the Python extension's
// interpreter (`python -m easel_ls`). Kept free of the vscode API so it reads on its own.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export interface ServerCommand {
  command: string;
  args: string[];
  origin: "setting" | "PATH" | "Python extension";
}

export interface ServerSettings {
  path: string;
  args: string[];
}

export async function findServer(
  settings: ServerSettings,
  pythonInterpreter: () => Promise<string | undefined>,
): Promise<ServerCommand | undefined> {
  if (settings.path.trim()) {
    return { command: settings.path.trim(), args: settings.args, origin: "setting" };
  }
  const onPath = which(process.platform === "win32" ? "easel-ls.exe" : "easel-ls");
  if (onPath) return { command: onPath, args: settings.args, origin: "PATH" };
  const python = await pythonInterpreter();
  if (python && hasEaselLs(python)) {
    return { command: python, args: ["-m", "easel_ls", ...settings.args], origin: "Python extension" };
  }
  return undefined;
}

export function which(name: string, searchPath = process.env.PATH ?? ""): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here: keep looking
    }
  }
  return undefined;
}

/** Whether the interpreter can import easel_ls (checked so a bare Python is not "found"). */
function hasEaselLs(python: string): boolean {
  const probe = spawnSync(python, ["-c", "import easel_ls"], { timeout: 10_000, stdio: "ignore" });
  return probe.status === 0;
}
