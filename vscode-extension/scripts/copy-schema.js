// Ships the server's JSON Schema for .easel.json inside the extension, so VS Code's JSON
// language service offers completion and hover for it even before easel-ls starts.
const fs = require("fs");
const path = require("path");

const source = path.join(__dirname, "..", "..", "easel_ls", "schemas", "easel.schema.json");
const target = path.join(__dirname, "..", "schemas", "easel.schema.json");

if (!fs.existsSync(source)) {
  console.error(`copy-schema: ${source} does not exist; the extension needs it for .easel.json`);
  process.exit(1);
}
JSON.parse(fs.readFileSync(source, "utf8")); // a broken schema fails the build, not the user
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(source, target);
console.log(`copy-schema: ${path.relative(process.cwd(), target)}`);
