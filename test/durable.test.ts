/** The durable store port (src/core/durable/store.ts): atomic, no lost update across processes, never overwrites what it cannot read. */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonDocument, DurableCorruptError, durablePath, repoDurablePath, dataDir } from '../src/core/durable/store';
import { cacheDir } from '../src/core/settings';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

describe('durable store', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'sl-durable-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the default before the first write, then what was written; leaves no temp or lock file', () => {
    const doc = new JsonDocument<{ n: number }>(join(dir, 'sub', 'doc.json'), () => ({ n: 0 }));
    assert.deepEqual(doc.read(), { n: 0 });
    assert.deepEqual(doc.update(d => ({ n: d.n + 1 })), { n: 1 });
    assert.deepEqual(doc.update(d => ({ n: d.n + 1 })), { n: 2 });
    assert.deepEqual(new JsonDocument(doc.path, () => ({ n: -1 })).read(), { n: 2 });
    assert.deepEqual(readdirSync(join(dir, 'sub')), ['doc.json']);
  });

  it('never overwrites a file it cannot read', () => {
    const path = join(dir, 'doc.json');
    writeFileSync(path, '{"half": ');
    const doc = new JsonDocument<{ n: number }>(path, () => ({ n: 0 }));
    assert.throws(() => doc.read(), DurableCorruptError);
    assert.throws(() => doc.update(() => ({ n: 1 })), DurableCorruptError);
    assert.equal(readFileSync(path, 'utf8'), '{"half": ');
  });

  it('a failed update writes nothing', () => {
    const doc = new JsonDocument<{ n: number }>(join(dir, 'doc.json'), () => ({ n: 0 }));
    doc.update(() => ({ n: 1 }));
    assert.throws(() => doc.update(() => { throw new Error('no'); }), /no/);
    assert.deepEqual(doc.read(), { n: 1 });
    assert.deepEqual(readdirSync(dir), ['doc.json']);
  });

  it('takes over the lock of a process that died holding it', () => {
    const path = join(dir, 'doc.json');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: Date.now(), token: 'dead' }));
    const doc = new JsonDocument<{ n: number }>(path, () => ({ n: 0 }));
    assert.deepEqual(doc.update(d => ({ n: d.n + 1 })), { n: 1 });
    assert.deepEqual(readdirSync(dir), ['doc.json']);
  });

  it('two processes updating at once lose no update', async function () {
    this.timeout(120_000);
    const path = join(dir, 'shared.json');
    const writer = join(ROOT, 'test', 'helpers', 'durable-writer.ts');
    await Promise.all(['a', 'b'].map(tag => run(process.execPath, ['-r', 'tsx/cjs', writer, path, tag, '40'], { cwd: ROOT })));
    const entries = (JSON.parse(readFileSync(path, 'utf8')) as { entries: string[] }).entries;
    assert.equal(entries.length, 80);
    for (const tag of ['a', 'b']) assert.deepEqual(entries.filter(e => e.startsWith(`${tag}-`)), Array.from({ length: 40 }, (_, i) => `${tag}-${i}`));
  });

  it('lives outside the cache folder: per workspace in the user data folder, or in the repository', () => {
    const saved = { data: process.env.SIGHTLINE_DATA_DIR, cache: process.env.SIGHTLINE_CACHE_DIR };
    try {
      delete process.env.SIGHTLINE_DATA_DIR; delete process.env.SIGHTLINE_CACHE_DIR;
      assert.ok(!dataDir().startsWith(cacheDir()), `${dataDir()} is inside the cache ${cacheDir()}`);
      process.env.SIGHTLINE_DATA_DIR = dir;
      const ws = join(dir, 'ws'); mkdirSync(ws);
      assert.ok(durablePath([ws], 'memories').startsWith(join(dir, 'ws-')));
      assert.ok(durablePath([ws], 'memories').endsWith('memories.json'));
      assert.equal(repoDurablePath(ws, 'memories'), join(ws, '.sightline', 'memories.json'));
    } finally {
      for (const [k, v] of [['SIGHTLINE_DATA_DIR', saved.data], ['SIGHTLINE_CACHE_DIR', saved.cache]] as const) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    }
  });
});
