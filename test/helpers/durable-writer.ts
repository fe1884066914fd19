// Child process of test/durable.test.ts: appends `count` entries tagged `tag` to a durable document, one update each.
import { JsonDocument } from '../../src/core/durable/store';

const [path, tag, count] = process.argv.slice(2) as [string, string, string];
const doc = new JsonDocument<{ entries: string[] }>(path, () => ({ entries: [] }));
for (let i = 0; i < Number(count); i++) doc.update(d => ({ entries: [...d.entries, `${tag}-${i}`] }));
