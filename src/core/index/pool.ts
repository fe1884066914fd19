/**
 * A small pool of worker threads for parsing. `threads: 0` parses on the calling thread (tests,
 * parse-floor benchmark). A worker that dies is replaced and its task reported as skipped.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { assetPath } from '../assets';
import { processFile, type FileOutcome, type FileTask } from './process';

interface Slot { worker: Worker; busy: Map<number, (o: FileOutcome) => void> }

/** Files queued per worker: enough work (~60 ms) to keep it busy while the caller writes a batch of results. */
const PER_WORKER = 12;

export class ParsePool {
  private slots: Slot[] = [];
  private queue: { id: number; task: FileTask; resolve: (o: FileOutcome) => void }[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly threads: number) {
    const script = assetPath('worker.js');
    if (threads > 0 && !existsSync(script)) throw new Error(`worker script missing at ${script}; run "npm run build"`);
    for (let i = 0; i < threads; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(assetPath('worker.js'), { resourceLimits: { maxOldGenerationSizeMb: 512 } });
    const slot: Slot = { worker, busy: new Map() };
    worker.on('message', (msg: { id: number; outcome: FileOutcome }) => {
      const resolve = slot.busy.get(msg.id);
      slot.busy.delete(msg.id);
      resolve?.(msg.outcome);
      this.pump();
    });
    const fail = (why: string) => {
      const pending = [...slot.busy.values()];
      slot.busy.clear();
      for (const resolve of pending) resolve({ status: 'skipped', diagnostics: [{ code: 'worker_crashed', message: why }] });
      const i = this.slots.indexOf(slot);
      if (i >= 0 && !this.closed) { this.slots[i] = this.spawn(); this.pump(); }
    };
    worker.on('error', e => fail(`parser worker failed: ${e.message}`));
    worker.on('exit', code => { if (!this.closed) fail(`parser worker exited with code ${code}`); });
    worker.unref();
    return slot;
  }

  run(task: FileTask): Promise<FileOutcome> {
    if (this.threads === 0) return processFile(task);
    return new Promise(resolve => { this.queue.push({ id: this.nextId++, task, resolve }); this.pump(); });
  }

  private pump(): void {
    for (let round = 0; round < PER_WORKER; round++) {
      for (const slot of this.slots) {
        if (slot.busy.size > round || !this.queue.length) continue;
        const job = this.queue.shift()!;
        slot.busy.set(job.id, job.resolve);
        slot.worker.ref();
        slot.worker.postMessage({ id: job.id, task: job.task });
      }
    }
    for (const slot of this.slots) if (!slot.busy.size) slot.worker.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map(s => s.worker.terminate()));
    this.slots = [];
  }
}
