/** Worker-thread entry: parses files off the calling thread. Messages: FileTask in, FileOutcome out. */
import { parentPort } from 'node:worker_threads';
import { processFile, type FileTask } from './process';

if (parentPort) {
  const port = parentPort;
  port.on('message', async (msg: { id: number; task: FileTask }) => {
    try {
      const outcome = await processFile(msg.task);
      port.postMessage({ id: msg.id, outcome });
    } catch (e) {
      port.postMessage({ id: msg.id, outcome: { status: 'skipped', diagnostics: [{ code: 'worker_error', message: String((e as Error)?.stack ?? e) }] } });
    }
  });
}
