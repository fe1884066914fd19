// Child process of test/memories.test.ts: adds `count` span memories tagged `tag` to a workspace's memories, one add each.
import { Engine } from '../../src/core/engine';

const [root, db, tag, count] = process.argv.slice(2) as [string, string, string, string];
void (async () => {
  const e = await Engine.open({ roots: [root], dbPath: db, threads: 0 });
  for (let i = 0; i < Number(count); i++) await e.memories.add({ anchor_kind: 'span', path: 'src/users.ts', start_line: 1, end_line: 1, text: `${tag}-${i}` });
  e.close();
})().catch(err => { console.error(err); process.exit(1); });
