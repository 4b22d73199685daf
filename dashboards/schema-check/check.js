#!/usr/bin/env node
// Checks Grafana dashboard JSON files against Grafana's own published schema (@grafana/schema) by
// type-checking them with TypeScript in strict mode.
//
//   node check.js [dashboard.json ...]     (default: every ../grafana/*.json)
//
// Each file becomes a TypeScript module `export const dashboard: KlatDashboard = <the JSON>;` in a
// temporary directory. The JSON is the object literal itself, not an imported value, because only
// a literal gets TypeScript's excess property check, which is what rejects a misspelt key. The JSON
// starts on the module's first line, so an error's line number is the JSON file's.
//
// Exit status: 0 when every file type-checks, 1 when one does not (the errors are printed as
// file:line:column - message), 2 on a usage error.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const ts = require('typescript');
const { defaultDashboard } = require('@grafana/schema');

const here = __dirname;
const typesModule = path.join(here, 'klat-dashboard');

// The options `tsc --strict --noEmit` would use, for a module importing @grafana/schema.
const compilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  skipLibCheck: true,
  types: [],
};

function dashboardFiles(args) {
  if (args.length > 0) {
    return args.map((f) => path.resolve(f));
  }
  const dir = path.resolve(here, '..', 'grafana');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Returns the problems TypeScript cannot see, as messages; [] when there are none. */
function checkJsonValues(file, text) {
  let dashboard;
  try {
    dashboard = JSON.parse(text);
  } catch (e) {
    return [`${file}: not JSON: ${e.message}`];
  }
  // The schema types schemaVersion as any number; the package's default dashboard carries the
  // version this Grafana writes, which is the one a generated dashboard should declare.
  if (dashboard.schemaVersion !== defaultDashboard.schemaVersion) {
    return [
      `${file}: schemaVersion is ${dashboard.schemaVersion}, but @grafana/schema's Grafana` +
        ` writes ${defaultDashboard.schemaVersion}`,
    ];
  }
  return [];
}

function main(args) {
  const files = dashboardFiles(args);
  if (files.length === 0) {
    console.error('no dashboard JSON files to check');
    return 2;
  }
  const problems = [];
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'klat-schema-check-'));
  const modules = new Map(); // generated module -> its JSON file
  try {
    files.forEach((file, i) => {
      const text = fs.readFileSync(file, 'utf8');
      problems.push(...checkJsonValues(file, text));
      const module = path.join(workDir, `dashboard${i}.ts`);
      const header =
        `import type { KlatDashboard } from ${JSON.stringify(typesModule)};` +
        ' export const dashboard: KlatDashboard = ';
      fs.writeFileSync(module, `${header}${text.trimEnd()};\n`);
      modules.set(module, file);
    });
    const program = ts.createProgram([...modules.keys()], compilerOptions);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      problems.push(describe(d, modules));
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  for (const p of problems) {
    console.error(p);
  }
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s): not valid by @grafana/schema ${version()}`);
    return 1;
  }
  console.log(`${files.length} dashboard(s) valid by @grafana/schema ${version()}`);
  return 0;
}

/** One diagnostic as file:line:column - message, naming the JSON file rather than the module. */
function describe(d, modules) {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file) {
    return `error TS${d.code}: ${message}`;
  }
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const name = modules.get(path.resolve(d.file.fileName)) || d.file.fileName;
  return `${name}:${line + 1}:${character + 1} - error TS${d.code}: ${message}`;
}

function version() {
  return require('@grafana/schema/package.json').version;
}

process.exitCode = main(process.argv.slice(2));
