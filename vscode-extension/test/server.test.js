// How the extension finds the server: the setting; the bundled server with the Python
// extension's interpreter or a python3 >= 3.11 on PATH; easel-ls on PATH; the Python extension's
// interpreter if it has easel_ls. Runs on the esbuild output of src/server.ts; the interpreters
// are small shell scripts that print what `print(sys.version_info[:2])` would.
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const { test } = require("node:test");
const {
  findServer,
  interpreterCandidates,
  missingServerMessage,
  parseVersion,
  probeVersion,
  readBundle,
  which,
} = require("../dist/test/server.js");

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "easel-ext-"));

function fakeExecutable(dir, name, body = "#!/bin/sh\nexit 0\n") {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}

/** A fake CPython that reports `version` ("3.12") to the probe. */
function fakePython(dir, name, version) {
  const [major, minor] = version.split(".");
  return fakeExecutable(dir, name, `#!/bin/sh\necho "(${major}, ${minor})"\n`);
}

/** A bundled/libs folder as scripts/bundle-server.py writes it. */
function fakeBundle(versions = ["3.11", "3.12", "3.13"]) {
  const libs = tmp();
  const pythons = {};
  for (const v of versions) {
    const folder = `cp${v.replace(".", "")}`;
    fs.mkdirSync(path.join(libs, folder));
    pythons[v] = { path: folder, packages: { "easel-ls": "0.1.0" } };
  }
  const manifest = { target: "linux-x64", easelLs: "0.1.0", pythons };
  fs.writeFileSync(path.join(libs, "bundle.json"), JSON.stringify(manifest));
  return libs;
}

const settings = { path: "", args: ["server"] };

test("the setting wins, with its arguments, and nothing is probed", async () => {
  const { server, tried } = await findServer(
    { path: " /opt/easel-ls ", args: ["--stdio"] },
    {
      bundledLibs: fakeBundle(),
      probeVersion: () => assert.fail("probed an interpreter despite the setting"),
    },
  );
  assert.deepEqual(server, {
    command: "/opt/easel-ls",
    args: ["--stdio"],
    origin: "setting",
    detail: "easel-ls.server.path",
  });
  assert.deepEqual(tried, []);
});

test("bundled: the Python extension's interpreter first, isolated, libs first on PYTHONPATH", async () => {
  const libs = fakeBundle();
  const selected = fakePython(tmp(), "python", "3.12");
  const onPath = tmp();
  fakePython(onPath, "python3", "3.11");
  fakeExecutable(onPath, "easel-ls"); // the bundled server still comes first
  const { server, tried } = await findServer(settings, {
    bundledLibs: libs,
    pythonInterpreter: async () => selected,
    searchPath: onPath,
    inheritedPythonPath: "/home/me/lib",
    platform: "linux",
  });
  assert.equal(server.command, selected);
  assert.deepEqual(server.args, ["-s", "-P", "-m", "easel_ls", "server"]);
  assert.deepEqual(server.env, {
    PYTHONPATH: `${path.join(libs, "cp312")}:/home/me/lib`,
    PYTHONNOUSERSITE: "1",
  });
  assert.equal(server.origin, "bundled");
  assert.match(server.detail, /bundled server \(easel-ls 0\.1\.0, linux-x64\) with Python 3\.12 from the Python extension/);
  assert.deepEqual(tried, []);
});

test("bundled: an old selected interpreter is passed over for python3 >= 3.11 on PATH", async () => {
  const libs = fakeBundle();
  const selected = fakePython(tmp(), "python", "3.10");
  const onPath = tmp();
  const python3 = fakePython(onPath, "python3", "3.13");
  const { server, tried } = await findServer(settings, {
    bundledLibs: libs,
    pythonInterpreter: async () => selected,
    searchPath: onPath,
    inheritedPythonPath: "",
    platform: "linux",
  });
  assert.equal(server.command, python3);
  assert.equal(server.env.PYTHONPATH, path.join(libs, "cp313"));
  assert.match(server.detail, /Python 3\.13 from PATH/);
  assert.deepEqual(tried, [
    `${selected} (Python extension): Python 3.10, easel-ls needs 3.11 or newer`,
  ]);
});

test("bundled: a Python the bundle has no folder for is passed over, then one that fails to run", async () => {
  const libs = fakeBundle(["3.11", "3.12"]);
  const onPath = tmp();
  const python3 = fakePython(onPath, "python3", "3.16");
  const python = fakeExecutable(onPath, "python", "#!/bin/sh\nexit 9\n");
  const exe = fakeExecutable(onPath, "easel-ls");
  const { server, tried } = await findServer(settings, {
    bundledLibs: libs,
    searchPath: onPath,
    platform: "linux",
  });
  assert.deepEqual(server, {
    command: exe,
    args: ["server"],
    origin: "PATH",
    detail: "easel-ls on PATH",
  });
  assert.deepEqual(tried, [
    `${python3} (PATH): Python 3.16, the bundled server is built for 3.11, 3.12`,
    `${python} (PATH): did not run`,
  ]);
});

test("the universal package (no bundle): easel-ls on PATH", async () => {
  const dir = tmp();
  const exe = fakeExecutable(dir, "easel-ls");
  fakePython(dir, "python3", "3.12");
  const { server, tried } = await findServer(settings, {
    bundledLibs: path.join(tmp(), "missing"),
    searchPath: [tmp(), dir].join(path.delimiter),
  });
  assert.equal(server.command, exe);
  assert.equal(server.origin, "PATH");
  assert.equal(server.env, undefined);
  assert.match(tried[0], /not in this package/);
});

test("no bundle, no easel-ls on PATH: the Python extension's interpreter, as python -m easel_ls", async () => {
  const python = fakeExecutable(tmp(), "python3"); // exits 0: `import easel_ls` succeeds
  const { server } = await findServer(
    { path: "", args: ["-v"] },
    { pythonInterpreter: async () => python, searchPath: tmp() },
  );
  assert.deepEqual(server, {
    command: python,
    args: ["-m", "easel_ls", "-v"],
    origin: "Python extension",
    detail: "python -m easel_ls with the Python extension's interpreter",
  });
});

test("nothing usable: no server, and the message says what was tried and how to fix it", async () => {
  const python = fakeExecutable(tmp(), "python3", "#!/bin/sh\nexit 1\n");
  const onPath = tmp();
  fakePython(onPath, "python3", "3.9");
  const { server, tried } = await findServer(settings, {
    bundledLibs: fakeBundle(),
    pythonInterpreter: async () => python,
    searchPath: onPath,
    platform: "linux",
  });
  assert.equal(server, undefined);
  assert.deepEqual(tried, [
    `${python} (Python extension): did not run`,
    `${path.join(onPath, "python3")} (PATH): Python 3.9, easel-ls needs 3.11 or newer`,
    "easel-ls on PATH: not found",
    `${python} (Python extension): cannot import easel_ls`,
  ]);
  const message = missingServerMessage(tried);
  assert.match(message, /Python 3\.11 or newer/);
  assert.match(message, /easel-ls\.server\.path/);
  assert.ok(message.includes(tried[1]));
});

test("a bundle without a python on PATH says so", async () => {
  const { server, tried } = await findServer(settings, {
    bundledLibs: fakeBundle(),
    searchPath: tmp(),
    platform: "linux",
  });
  assert.equal(server, undefined);
  assert.deepEqual(tried, [
    "bundled server: no python3 or python on PATH",
    "easel-ls on PATH: not found",
  ]);
});

test("Windows: py -3 first, then python.exe, then python3.exe; the selected one before all", () => {
  const dir = tmp();
  for (const name of ["python3.exe", "python.exe", "py.exe"]) fakeExecutable(dir, name);
  const found = interpreterCandidates("C:\\Python313\\python.exe", "win32", `${dir};`);
  assert.deepEqual(
    found.map((c) => [c.command, c.args, c.source]),
    [
      ["C:\\Python313\\python.exe", [], "Python extension"],
      [path.join(dir, "py.exe"), ["-3"], "PATH"],
      [path.join(dir, "python.exe"), [], "PATH"],
      [path.join(dir, "python3.exe"), [], "PATH"],
    ],
  );
});

test("the selected interpreter is not tried twice when it is also python3 on PATH", () => {
  const dir = tmp();
  const python3 = fakeExecutable(dir, "python3");
  const found = interpreterCandidates(python3, "linux", dir);
  assert.deepEqual(found.map((c) => c.source), ["Python extension"]);
});

test("readBundle: a missing or broken bundle.json is no bundle", () => {
  assert.equal(readBundle(tmp()), undefined);
  const broken = tmp();
  fs.writeFileSync(path.join(broken, "bundle.json"), "{");
  assert.equal(readBundle(broken), undefined);
  const libs = fakeBundle(["3.11"]);
  assert.deepEqual(readBundle(libs), {
    libs,
    target: "linux-x64",
    easelLs: "0.1.0",
    pythons: { "3.11": "cp311" },
  });
});

test("parseVersion reads print(sys.version_info[:2]) and nothing else", () => {
  assert.deepEqual(parseVersion("(3, 11)\n"), [3, 11]);
  assert.deepEqual(parseVersion("(3, 15)\r\n"), [3, 15]);
  assert.equal(parseVersion("Python was not found; run without arguments to install"), undefined);
  assert.equal(parseVersion(""), undefined);
  assert.equal(parseVersion(null), undefined);
});

test("probeVersion runs a real python3 when there is one", (t) => {
  const python3 = which("python3");
  if (!python3) return t.skip("no python3 on PATH");
  const expected = spawnSync(python3, ["-c", "import sys; print(sys.version_info[0])"], {
    encoding: "utf8",
  }).stdout.trim();
  const version = probeVersion({ command: python3, args: [], source: "PATH" });
  assert.equal(String(version[0]), expected);
  assert.equal(probeVersion({ command: path.join(tmp(), "nope"), args: [], source: "PATH" }), undefined);
});

test("a file that is not executable is not a server", () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, "easel-ls"), "", { mode: 0o644 });
  assert.equal(which("easel-ls", dir), undefined);
});

test("untrusted workspace: the Python extension's interpreter is not run, python3 on PATH is", async () => {
  const selected = fakePython(tmp(), "python", "3.12");
  const onPath = tmp();
  const python3 = fakePython(onPath, "python3", "3.11");
  const { server, tried } = await findServer(settings, {
    bundledLibs: fakeBundle(),
    pythonInterpreter: async () => selected,
    trusted: false,
    searchPath: onPath,
    platform: "linux",
  });
  assert.equal(server.command, python3);
  assert.deepEqual(tried, [
    "the Python extension's interpreter: not run in an untrusted workspace",
  ]);
});

test("macOS: /usr/bin/python3 (Apple's stub) is never probed", () => {
  const dir = tmp();
  const python3 = fakeExecutable(dir, "python3");
  assert.deepEqual(interpreterCandidates(undefined, "darwin", `/usr/bin:${dir}`), [
    { command: python3, args: [], source: "PATH" },
  ]);
});
