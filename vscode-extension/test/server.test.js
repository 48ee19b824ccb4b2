// How the extension finds the server: the setting, then PATH, then the Python extension's
// interpreter (only one that can import easel_ls). Runs on the esbuild output of src/server.ts.
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { test } = require("node:test");
const { findServer, which } = require("../dist/test/server.js");

function fakeExecutable(dir, name, body = "#!/bin/sh\nexit 0\n") {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}

function withPath(dirs, run) {
  const saved = process.env.PATH;
  process.env.PATH = dirs.join(path.delimiter);
  return Promise.resolve(run()).finally(() => (process.env.PATH = saved));
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "easel-ext-"));
const noPython = async () => undefined;

test("the setting wins, with its arguments", async () => {
  const found = await findServer({ path: " /opt/easel-ls ", args: ["--stdio"] }, noPython);
  assert.deepEqual(found, { command: "/opt/easel-ls", args: ["--stdio"], origin: "setting" });
});

test("without a setting, easel-ls on PATH", async () => {
  const dir = tmp();
  const exe = fakeExecutable(dir, "easel-ls");
  await withPath([tmp(), dir], async () => {
    const found = await findServer({ path: "", args: [] }, noPython);
    assert.deepEqual(found, { command: exe, args: [], origin: "PATH" });
  });
});

test("a file that is not executable is not a server", () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, "easel-ls"), "", { mode: 0o644 });
  assert.equal(which("easel-ls", dir), undefined);
});

test("then the Python extension's interpreter, as python -m easel_ls", async () => {
  const python = fakeExecutable(tmp(), "python3"); // exits 0: `import easel_ls` succeeds
  await withPath([tmp()], async () => {
    const found = await findServer({ path: "", args: ["-v"] }, async () => python);
    assert.deepEqual(found, {
      command: python,
      args: ["-m", "easel_ls", "-v"],
      origin: "Python extension",
    });
  });
});

test("an interpreter without easel_ls is not a server: nothing is found", async () => {
  const python = fakeExecutable(tmp(), "python3", "#!/bin/sh\nexit 1\n");
  await withPath([tmp()], async () => {
    assert.equal(await findServer({ path: "", args: [] }, async () => python), undefined);
  });
});
