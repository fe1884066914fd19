/**
 * The parse pool when a worker dies: a worker thread that runs out of memory on one file is replaced,
 * and the other files queued on it are parsed again (each alone), not reported as crashed.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParsePool } from '../src/core/index/pool';
import type { FileTask } from '../src/core/index/process';

/** A worker that answers every file, and exhausts its heap on `huge.py` (as the parser may on one huge file). */
const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', msg => {
  if (msg.task.path === 'huge.py') { const hoard = []; for (;;) hoard.push(new Array(1e6).fill(msg.id)); }
  parentPort.postMessage({ id: msg.id, outcome: { status: 'parsed', path: msg.task.path } });
});
`;

const task = (path: string): FileTask => ({ root: '/', repo_id: 'r', abs: `/${path}`, path, language: 'python', size: 1, mtime_ms: 0, known_hash: null, max_file_bytes: 1 });

describe('parse pool: a worker that dies', function () {
  this.timeout(60000);
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'sightline-pool-')); writeFileSync(join(dir, 'worker.js'), WORKER); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('out of memory on one file: that file is worker_crashed, the files queued beside it are parsed', async () => {
    const pool = new ParsePool(1, join(dir, 'worker.js'));
    try {
      const paths = ['a.py', 'b.py', 'huge.py', 'c.py', 'd.py', 'e.py'];
      const outcomes = await Promise.all(paths.map(p => pool.run(task(p))));
      const byPath = new Map(paths.map((p, i) => [p, outcomes[i] as { status: string; diagnostics?: { code: string; message: string }[] }]));
      assert.equal(byPath.get('huge.py')!.status, 'skipped');
      assert.equal(byPath.get('huge.py')!.diagnostics![0]!.code, 'worker_crashed');
      assert.match(byPath.get('huge.py')!.diagnostics![0]!.message, /alone/);
      for (const p of paths.filter(x => x !== 'huge.py')) assert.equal(byPath.get(p)!.status, 'parsed', `${p} was lost with the crashed worker`);
      // the pool goes on with a fresh worker
      assert.equal(((await pool.run(task('f.py'))) as { status: string }).status, 'parsed');
    } finally { await pool.close(); }
  });
});
