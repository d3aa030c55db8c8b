// Runs one Python script under MicroPython's WebAssembly port (the npm package
// @micropython/micropython-webassembly-pyscript, pinned in package.json).
//
//   node tools/micropython/run.mjs [--lib DIR]... SCRIPT [ARG]...
//
// Each --lib DIR (a package such as firmware/) is copied, its .py and .json
// files recursively, into /lib/<name of DIR> of the port's in-memory
// filesystem, where `import firmware.core` finds it. SCRIPT then runs as
// __main__ with sys.argv = [SCRIPT, ARG...]. What it prints goes to stdout byte
// for byte; an uncaught Python exception prints its traceback on stderr and
// the exit status is 1. Used by tests/firmware/test_micropython_wasm.py.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(
  here,
  "node_modules",
  "@micropython",
  "micropython-webassembly-pyscript",
  "micropython.mjs",
);

function usage(message) {
  process.stderr.write(`run.mjs: ${message}\nusage: node run.mjs [--lib DIR]... SCRIPT [ARG]...\n`);
  process.exit(2);
}

const libs = [];
const argv = process.argv.slice(2);
while (argv.length && argv[0] === "--lib") {
  argv.shift();
  if (!argv.length) usage("--lib needs a directory");
  libs.push(argv.shift());
}
if (!argv.length) usage("no script given");
const [script, ...args] = argv;

if (!fs.existsSync(entry)) {
  process.stderr.write(
    `run.mjs: ${entry} is missing: install it with \`npm ci --prefix ${here}\` (make test does)\n`,
  );
  process.exit(3);
}
const { loadMicroPython } = await import(entry);

const chunks = [];
const mp = await loadMicroPython({
  heapsize: 4 * 1024 * 1024,
  linebuffer: false,
  stdout: (bytes) => chunks.push(Buffer.from(bytes)),
  stderr: (bytes) => process.stderr.write(Buffer.from(bytes)),
});

function copyTree(src, dest) {
  mp.FS.mkdir(dest);
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, entry.name);
    const to = `${dest}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") copyTree(from, to);
    } else if (/\.(py|json)$/.test(entry.name)) {
      mp.FS.writeFile(to, fs.readFileSync(from));
    }
  }
}

try {
  mp.FS.mkdir("/lib");
} catch {
  // already there
}
for (const lib of libs) {
  copyTree(path.resolve(lib), `/lib/${path.basename(path.resolve(lib))}`);
}

let status = 0;
try {
  mp.runPython(
    `import sys\nsys.argv.clear()\nsys.argv.extend(${JSON.stringify([script, ...args])})`,
  );
  mp.runPython(fs.readFileSync(script, "utf8"));
} catch (err) {
  process.stderr.write(`${err.message ?? err}\n`);
  status = 1;
}
process.stdout.write(Buffer.concat(chunks));
process.exitCode = status;
