// Runs the Khronos glTF-Validator (npm gltf-validator) on each file given and
// prints one line per file: "FILE errors N warnings M CODE:count ...", the
// codes of its errors. Usage: NODE_PATH=DIR/node_modules node gltf_validate.js FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function one(file) {
  const data = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
      try {
        resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri)))));
      } catch (e) { reject(e.toString()); }
    }),
  });
  const codes = {};
  for (const m of report.issues.messages)
    if (m.severity <= 1) { const c = (m.severity ? 'warning:' : '') + m.code; codes[c] = (codes[c] || 0) + 1; }
  const list = Object.keys(codes).sort().map((c) => c + ':' + codes[c]).join(' ');
  console.log(`${file} errors ${report.issues.numErrors} warnings ${report.issues.numWarnings}` +
              (list ? ' ' + list : ''));
}

(async () => {
  let status = 0;
  for (const f of process.argv.slice(2)) {
    try { await one(f); } catch (e) { console.log(`${f} failed: ${e}`); status = 1; }
  }
  process.exit(status);
})();
