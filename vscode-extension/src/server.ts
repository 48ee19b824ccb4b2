// Finds the easel-ls server command. Order: the `easel-ls.server.path` setting; the server bundled
// in a platform-specific .vsix (bundled/libs, see scripts/bundle-server.py), run by the Python
// extension's interpreter or a python3 >= 3.11 on PATH; `easel-ls` on PATH; the Python
// extension's interpreter if it can import easel_ls. Kept free of the vscode API so it is unit
// tested on its own (test/server.test.js); what it tried is returned for the log and the error.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export type Origin = "setting" | "bundled" | "PATH" | "Python extension";

export interface ServerCommand {
  command: string;
  args: string[];
  origin: Origin;
  /** Added to the extension host's environment for the server process. */
  env?: Record<string, string>;
  /** What was chosen, in words, for the output channel. */
  detail: string;
}

export interface ServerSettings {
  path: string;
  args: string[];
}

/** An interpreter to try: `py -3` on Windows has an argument of its own. */
export interface Interpreter {
  command: string;
  args: string[];
  source: "Python extension" | "PATH";
}

/** `bundled/libs/bundle.json`, written by scripts/bundle-server.py. */
export interface Bundle {
  libs: string;
  target: string;
  easelLs: string;
  /** "3.11" -> folder (relative to libs) holding the closure built for that CPython. */
  pythons: Record<string, string>;
}

export const MIN_PYTHON: readonly [number, number] = [3, 11];

export interface FindOptions {
  /** The bundled/libs folder of this extension (absent in the universal package). */
  bundledLibs?: string;
  /** The interpreter selected in the Python extension, if it is installed. */
  pythonInterpreter?: () => Promise<string | undefined>;
  /** Workspace trust: an untrusted workspace may have chosen that interpreter (its own venv),
   * so it is not run there; python3 from PATH is. Default: trusted. */
  trusted?: boolean;
  platform?: NodeJS.Platform;
  searchPath?: string;
  /** The `PYTHONPATH` the server would inherit (the bundled libs go before it). */
  inheritedPythonPath?: string;
  /** (major, minor) of an interpreter, undefined when it does not run. */
  probeVersion?: (interpreter: Interpreter) => [number, number] | undefined;
  /** Whether an interpreter can import easel_ls (the last resort, for unbundled packages). */
  canImportEaselLs?: (python: string) => boolean;
}

export interface FindResult {
  server?: ServerCommand;
  /** One line per candidate that was passed over, and why. */
  tried: string[];
}

export async function findServer(
  settings: ServerSettings,
  options: FindOptions = {},
): Promise<FindResult> {
  const tried: string[] = [];
  if (settings.path.trim()) {
    const command = settings.path.trim();
    return {
      server: { command, args: settings.args, origin: "setting", detail: "easel-ls.server.path" },
      tried,
    };
  }
  const platform = options.platform ?? process.platform;
  const searchPath = options.searchPath ?? process.env.PATH ?? "";
  let selected: string | undefined;
  if (options.trusted === false) {
    if (options.pythonInterpreter) {
      tried.push("the Python extension's interpreter: not run in an untrusted workspace");
    }
  } else {
    selected = await options.pythonInterpreter?.();
  }

  const bundle = options.bundledLibs ? readBundle(options.bundledLibs) : undefined;
  if (!bundle) {
    tried.push("bundled server: not in this package (the universal .vsix ships none)");
  } else {
    const candidates = interpreterCandidates(selected, platform, searchPath);
    if (!candidates.length) tried.push("bundled server: no python3 or python on PATH");
    const server = bundledServer(
      bundle,
      candidates,
      settings.args,
      options.probeVersion ?? probeVersion,
      options.inheritedPythonPath ?? process.env.PYTHONPATH ?? "",
      platform,
      tried,
    );
    if (server) return { server, tried };
  }

  const onPath = which(platform === "win32" ? "easel-ls.exe" : "easel-ls", searchPath, platform);
  if (onPath) {
    return {
      server: { command: onPath, args: settings.args, origin: "PATH", detail: "easel-ls on PATH" },
      tried,
    };
  }
  tried.push("easel-ls on PATH: not found");

  if (selected) {
    if ((options.canImportEaselLs ?? hasEaselLs)(selected)) {
      const args = ["-m", "easel_ls", ...settings.args];
      const detail = "python -m easel_ls with the Python extension's interpreter";
      return { server: { command: selected, args, origin: "Python extension", detail }, tried };
    }
    tried.push(`${selected} (Python extension): cannot import easel_ls`);
  }
  return { tried };
}

/** The first candidate that runs, is new enough and has a bundled folder for its version. */
export function bundledServer(
  bundle: Bundle,
  candidates: Interpreter[],
  serverArgs: string[],
  probe: (interpreter: Interpreter) => [number, number] | undefined,
  inheritedPythonPath: string,
  platform: NodeJS.Platform,
  tried: string[],
): ServerCommand | undefined {
  const available = Object.keys(bundle.pythons).sort(compareVersions).join(", ");
  for (const candidate of candidates) {
    const label = `${[candidate.command, ...candidate.args].join(" ")} (${candidate.source})`;
    const version = probe(candidate);
    if (!version) {
      tried.push(`${label}: did not run`);
      continue;
    }
    const name = `${version[0]}.${version[1]}`;
    if (compareVersions(name, MIN_PYTHON.join(".")) < 0) {
      tried.push(`${label}: Python ${name}, easel-ls needs ${MIN_PYTHON.join(".")} or newer`);
      continue;
    }
    const folder = bundle.pythons[name];
    if (!folder) {
      tried.push(`${label}: Python ${name}, the bundled server is built for ${available}`);
      continue;
    }
    const libs = path.join(bundle.libs, folder);
    const delimiter = platform === "win32" ? ";" : ":";
    return {
      command: candidate.command,
      // -s: no user site-packages; -P: not the working directory (a workspace that holds an
      // easel_ls folder, e.g. this repo, must not shadow the bundled one). -I would also drop
      // PYTHONPATH, which is how the bundled libraries get in first.
      args: [...candidate.args, "-s", "-P", "-m", "easel_ls", ...serverArgs],
      env: {
        PYTHONPATH: inheritedPythonPath ? `${libs}${delimiter}${inheritedPythonPath}` : libs,
        PYTHONNOUSERSITE: "1",
      },
      origin: "bundled",
      detail:
        `bundled server (easel-ls ${bundle.easelLs}, ${bundle.target}) with Python ${name} ` +
        `from ${candidate.source === "PATH" ? "PATH" : "the Python extension"}, libraries ${libs}`,
    };
  }
  return undefined;
}

/** The Python extension's interpreter first, then the usual names on PATH. */
export function interpreterCandidates(
  selected: string | undefined,
  platform: NodeJS.Platform,
  searchPath: string,
): Interpreter[] {
  const found: Interpreter[] = [];
  if (selected) found.push({ command: selected, args: [], source: "Python extension" });
  const names: [string, string[]][] =
    platform === "win32"
      ? [["py.exe", ["-3"]], ["python.exe", []], ["python3.exe", []]]
      : [["python3", []], ["python", []]];
  // macOS's /usr/bin/python3 is Apple's 3.9 or, without the developer tools, a stub whose
  // every run pops up an install dialog: never worth probing.
  const dirs =
    platform === "darwin"
      ? searchPath.split(":").filter((dir) => dir.replace(/\/+$/, "") !== "/usr/bin").join(":")
      : searchPath;
  for (const [name, args] of names) {
    const command = which(name, dirs, platform);
    if (command && !found.some((c) => c.command === command && c.args.join() === args.join())) {
      found.push({ command, args, source: "PATH" });
    }
  }
  return found;
}

export function readBundle(libs: string): Bundle | undefined {
  let manifest: { target?: unknown; easelLs?: unknown; pythons?: unknown };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(libs, "bundle.json"), "utf8"));
  } catch {
    return undefined; // the universal package, or a broken build: no bundled server
  }
  const pythons: Record<string, string> = {};
  const entries = manifest.pythons && typeof manifest.pythons === "object" ? manifest.pythons : {};
  for (const [version, info] of Object.entries(entries as Record<string, { path?: unknown }>)) {
    if (typeof info?.path === "string") pythons[version] = info.path;
  }
  return {
    libs,
    target: String(manifest.target ?? "?"),
    easelLs: String(manifest.easelLs ?? "?"),
    pythons,
  };
}

export function probeVersion(interpreter: Interpreter): [number, number] | undefined {
  const probe = spawnSync(
    interpreter.command,
    [...interpreter.args, "-c", "import sys; print(sys.version_info[:2])"],
    { timeout: 10_000, encoding: "utf8", windowsHide: true },
  );
  return probe.status === 0 ? parseVersion(probe.stdout) : undefined;
}

/** "(3, 11)" as printed by `print(sys.version_info[:2])`. */
export function parseVersion(text: string | null | undefined): [number, number] | undefined {
  const match = /^\((\d+), (\d+)\)\s*$/.exec(text ?? "");
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

function compareVersions(a: string, b: string): number {
  const [a1, a2] = a.split(".").map(Number);
  const [b1, b2] = b.split(".").map(Number);
  return a1 - b1 || a2 - b2;
}

export function which(
  name: string,
  searchPath = process.env.PATH ?? "",
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  for (const dir of searchPath.split(platform === "win32" ? ";" : ":")) {
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

/** The error shown when no server was found: what to do, then what was tried. */
export function missingServerMessage(tried: string[]): string {
  return (
    "easel-ls could not start: install Python 3.11 or newer (a python3 on PATH, or select it " +
    "in the Python extension), or set `easel-ls.server.path` to an easel-ls executable " +
    `(\`pip install easel-ls\`). Tried: ${tried.join("; ")}.`
  );
}
