// The extensionTestsPath module: VS Code loads it in the extension host and calls run(); the workbench
// exits with 0 when the promise resolves and 1 when it rejects. Runs test/vscode/suite/*.test.js with
// the project's mocha, writes a JSON summary to $SIGHTLINE_VSCODE_RESULTS (set by test/vscode/run.mjs)
// and honours $SIGHTLINE_VSCODE_GREP.
'use strict';
const fs = require('fs');
const path = require('path');

async function loadMocha() {
  // mocha 12 is an ES module package; import() works from CommonJS in the extension host.
  const m = await import('mocha');
  return m.default || m.Mocha || m;
}

exports.run = async function run() {
  const Mocha = await loadMocha();
  const mocha = new Mocha({ ui: 'bdd', timeout: 120000, color: false, reporter: 'spec', forbidOnly: !!process.env.CI });
  if (process.env.SIGHTLINE_VSCODE_GREP) mocha.grep(process.env.SIGHTLINE_VSCODE_GREP);
  // Phase `main` runs every *.test.js except the phase-*.test.js files; phase X runs phase-X.test.js
  // (restart: a second editor start on the same index; vsix: the packaged extension; bench: measurements).
  const phase = process.env.SIGHTLINE_VSCODE_PHASE || 'main';
  const files = fs.readdirSync(__dirname).filter(f => f.endsWith('.test.js'))
    .filter(f => (phase === 'main' ? !f.startsWith('phase-') : f === `phase-${phase}.test.js`)).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));

  const records = new Map(); // test or hook -> { title, state, durationMs?, error? }
  const record = (t, fields) => records.set(t, { title: t.fullTitle(), ...records.get(t), ...fields });
  const failures = await new Promise((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('test end', t => record(t, { state: t.state || 'pending', durationMs: t.duration }));
    // 'fail' comes before 'test end' for tests, and alone for failed hooks.
    runner.on('fail', (t, err) => record(t, { state: 'failed', error: String((err && err.stack) || err) }));
  });
  const tests = [...records.values()];

  const passed = tests.filter(t => t.state === 'passed').length;
  const pending = tests.filter(t => t.state === 'pending').length;
  const summary = { passed, failed: failures, pending, files, tests };
  if (process.env.SIGHTLINE_VSCODE_RESULTS) fs.writeFileSync(process.env.SIGHTLINE_VSCODE_RESULTS, JSON.stringify(summary, null, 2));
  if (failures) throw new Error(`${failures} test(s) failed`);
  if (!passed) throw new Error('no tests ran' + (process.env.SIGHTLINE_VSCODE_GREP ? ` (grep: ${process.env.SIGHTLINE_VSCODE_GREP})` : ''));
};
