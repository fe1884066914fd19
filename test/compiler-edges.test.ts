/**
 * The background compiler-grade runs of a standalone server (src/surface/compiler-edges.ts), driven tick by tick
 * on a real engine: a provider that fails is not run again on every edit. (The MCP test runs the real bundled
 * TypeScript service end to end.)
 */
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../src/core/engine';
import { CompilerEdges } from '../src/surface/compiler-edges';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

describe('compiler-grade edges in the background', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let e: Engine;
  afterEach(() => { e?.close(); ws?.remove(); });

  async function edit(text: string): Promise<void> {
    await new Promise(r => setTimeout(r, 20)); // a new index time
    ws.write('app/core.py', text);
    await e.index();
  }

  it('a provider that failed waits before it runs again; with no wait it runs on the next change', async () => {
    ws = tempWorkspace({ 'app/core.py': 'def f():\n    return 1\n' });
    const failing = join(ws.root, '..', `failing-provider-${process.pid}.cjs`);
    writeFileSync(failing, 'process.stderr.write("broken on purpose\\n"); process.exit(1);\n');
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await e.index();
    const logs: string[] = [];
    const started = () => logs.filter(l => / started$/.test(l)).length;
    const waiting = new CompilerEdges(e, { cli: failing, quietMs: 0, log: (_l, m) => logs.push(m) });
    await waiting.tick();
    assert.equal(started(), 1);
    assert.ok(logs.some(l => /python on .* failed .*not run again for 60 min/.test(l)), logs.join('\n'));
    await edit('def f():\n    return 2\n');
    await waiting.tick();
    assert.equal(started(), 1, 'not retried on the next edit');
    const eager = new CompilerEdges(e, { cli: failing, quietMs: 0, retryAfterMs: 0, log: (_l, m) => logs.push(m) });
    await eager.tick();
    await edit('def f():\n    return 3\n');
    await eager.tick();
    assert.equal(started(), 3);
  });
});
