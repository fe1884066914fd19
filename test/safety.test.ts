/**
 * Safety: what the engine does when the files, the index file, the lock, the processes it starts or the
 * clients it serves misbehave. Engine tests run in-process; the CLI and MCP tests run the built dist/
 * (needs `npm run build`).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Engine } from '../src/core/engine';
import { SightlineError } from '../src/core/errors';
import { processFile } from '../src/core/index/process';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const open = (ws: TempWorkspace, extra: Partial<Parameters<typeof Engine.open>[0]> = {}) =>
  Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, ...extra });

const SECRET = 'root:x:0:0:the secret outside the workspace\n';

describe('safety', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => { while (cleanup.length) cleanup.pop()!(); });
  const make = (files: Record<string, string | Uint8Array>) => { const ws = tempWorkspace(files); cleanup.push(ws.remove); return ws; };

  describe('reads at request time stay inside the root', () => {
    it('get_chunk refuses a file that became a symlink out of the root after indexing', async () => {
      const ws = make({ 'pkg/a.py': 'def alpha():\n    return 1\n', 'pkg/b.py': 'def beta():\n    return 2\n' });
      const outside = join(dirname(ws.root), 'secret.txt');
      writeFileSync(outside, SECRET);
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const hit = (await e.search({ query: 'alpha', limit: 5, offset: 0, vector: false })).results.find(h => h.symbol_path === 'alpha')!;
      assert.match((await e.getChunk(hit.chunk_id)).text, /def alpha/);
      rmSync(join(ws.root, 'pkg/a.py'));
      symlinkSync(outside, join(ws.root, 'pkg/a.py'));
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => {
        assert.equal(err.code, 'path_outside_workspace');
        assert.doesNotMatch(err.message, /secret/);
        assert.equal(err.details?.path, 'pkg/a.py');
        return true;
      });
      // a link to a file inside the root is read (and flagged stale)
      rmSync(join(ws.root, 'pkg/a.py'));
      symlinkSync(join(ws.root, 'pkg/b.py'), join(ws.root, 'pkg/a.py'));
      const c = await e.getChunk(hit.chunk_id);
      assert.equal(c.stale, true);
      assert.match(c.text, /def beta/);
      // a folder on the way that became a link out is refused too
      rmSync(join(ws.root, 'pkg'), { recursive: true });
      const outDir = join(dirname(ws.root), 'elsewhere');
      spawnSync('mkdir', ['-p', outDir]);
      writeFileSync(join(outDir, 'a.py'), SECRET);
      symlinkSync(outDir, join(ws.root, 'pkg'));
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => err.code === 'path_outside_workspace');
    });

    it('get_chunk does not block on a file that became a FIFO', async function () {
      if (process.platform === 'win32') this.skip();
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const hit = (await e.search({ query: 'alpha', limit: 5, offset: 0, vector: false })).results[0]!;
      rmSync(join(ws.root, 'a.py'));
      assert.equal(spawnSync('mkfifo', [join(ws.root, 'a.py')]).status, 0);
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => err.code === 'not_found' && /not a regular file/.test(err.message));
    });

    it('a parser worker refuses a file swapped for a link out between the walk and the read', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const outside = join(dirname(ws.root), 'secret.py');
      writeFileSync(outside, 'def secret():\n    return 42\n');
      rmSync(join(ws.root, 'a.py'));
      symlinkSync(outside, join(ws.root, 'a.py'));
      const out = await processFile({ root: ws.root, repo_id: 'r', abs: join(ws.root, 'a.py'), path: 'a.py', language: 'python', size: 10, mtime_ms: 0, known_hash: null, max_file_bytes: 1 << 20 });
      assert.equal(out.status, 'skipped');
      assert.equal(out.status === 'skipped' && out.diagnostics[0]!.code, 'outside_workspace');
    });

    it('the editor is not handed a file that now leads out of the root', async () => {
      const ws = make({ 'a.ts': 'export function alpha() { return 1; }\nexport function beta() { return alpha(); }\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      assert.ok((await e.enrichmentTargets({ symbol: 'alpha', limit: 5 })).length === 1);
      const outside = join(dirname(ws.root), 'secret.ts');
      writeFileSync(outside, 'export const s = 1;\n');
      rmSync(join(ws.root, 'a.ts'));
      symlinkSync(outside, join(ws.root, 'a.ts'));
      assert.deepEqual(await e.enrichmentTargets({ symbol: 'alpha', limit: 5 }), []);
    });
  });
});
