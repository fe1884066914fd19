/**
 * A small pool of worker threads for parsing. `threads: 0` parses on the calling thread (tests,
 * parse-floor benchmark). A worker that dies (out of memory on one huge file) is replaced; the files it
 * held are parsed again, each alone on a worker, so that only the file that kills a worker by itself is
 * reported (skipped, worker_crashed) and the others queued beside it are not lost.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { assetPath } from '../assets';
import { processFile, type FileOutcome, type FileTask } from './process';

interface Job { id: number; task: FileTask; resolve: (o: FileOutcome) => void; /** retried alone after a crash */ alone?: boolean }
interface Slot { worker: Worker; busy: Map<number, Job> }

/** Files queued per worker: enough work (~60 ms) to keep it busy while the caller writes a batch of results. */
const PER_WORKER = 12;

export class ParsePool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  /** `script`: the worker's file (the bundled parser worker; tests give another) */
  constructor(private readonly threads: number, private readonly script = assetPath('worker.js')) {
    if (threads > 0 && !existsSync(script)) throw new Error(`worker script missing at ${script}; run "npm run build"`);
    for (let i = 0; i < threads; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: 512 } });
    const slot: Slot = { worker, busy: new Map() };
    worker.on('message', (msg: { id: number; outcome: FileOutcome }) => {
      const job = slot.busy.get(msg.id);
      slot.busy.delete(msg.id);
      job?.resolve(msg.outcome);
      this.pump();
    });
    const fail = (why: string) => {
      const pending = [...slot.busy.values()];
      slot.busy.clear();
      if (pending.length === 1) {
        // alone on the worker (or retried alone): this file is what kills it
        pending[0]!.resolve({ status: 'skipped', diagnostics: [{ code: 'worker_crashed', message: `${why} while parsing this file alone` }] });
      } else {
        // which of them killed it is not known: each is parsed again, alone
        this.queue.unshift(...pending.map(j => ({ ...j, alone: true })));
      }
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
        // a file retried after a crash goes alone to an idle worker, which takes nothing else meanwhile
        if ([...slot.busy.values()].some(j => j.alone)) continue;
        if (this.queue[0]!.alone && slot.busy.size) continue;
        const job = this.queue.shift()!;
        slot.busy.set(job.id, job);
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
