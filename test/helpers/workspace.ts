/** Builds real folders (and real git repositories) for tests, removed afterwards. */
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';

// Durable documents (memories) that tests write never go to the user's data folder.
if (!process.env.SIGHTLINE_DATA_DIR) process.env.SIGHTLINE_DATA_DIR = mkdtempSync(join(tmpdir(), 'sightline-test-data-'));
// Nor is the user's adapter configuration (`$XDG_CONFIG_HOME/sightline/config.toml`) read by them.
if (!process.env.SIGHTLINE_TEST_CONFIG_HOME) process.env.XDG_CONFIG_HOME = process.env.SIGHTLINE_TEST_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'sightline-test-config-'));

export interface TempWorkspace { root: string; db: string; write(rel: string, content: string | Uint8Array): string; remove(): void; git(...args: string[]): string }

export function tempWorkspace(files: Record<string, string | Uint8Array> = {}, name = 'ws'): TempWorkspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-test-')));
  const root = join(base, name);
  mkdirSync(root, { recursive: true });
  const write = (rel: string, content: string | Uint8Array) => {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    return abs;
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  return {
    root, db: join(base, 'index.sqlite'), write,
    // a server process that just closed may still be saving its index beside the workspace: retry a moment
    remove: () => rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }),
    git: (...args: string[]) => execFileSync('git', args, { cwd: root, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).toString(),
  };
}

/** A small multi-language project used by several suites. */
export const SAMPLE_FILES: Record<string, string> = {
  'src/users.ts': `import { Database as Db } from './db';

export interface UserRecord { id: string; name: string }

export class UserService {
  constructor(private readonly db: Db) {}

  getUserName(id: string): string {
    return this.lookup(id).name;
  }

  private lookup(id: string): UserRecord {
    return this.db.find(id);
  }
}
`,
  'src/db.ts': `export class Database {
  find(id: string) { return { id, name: 'n' + id }; }
}
export const MAX_RETRY_COUNT = 3;
`,
  'src/payments/retry.py': `import time as t

RETRY_LIMIT = 5

class PaymentRetrier:
    def retry_failed_payment(self, payment):
        for attempt in range(RETRY_LIMIT):
            if self.charge(payment):
                return True
            t.sleep(attempt)
        return False

    def charge(self, payment):
        return payment.amount > 0
`,
  'cmd/main.go': `package main

import "fmt"

type Worker struct{ name string }

func (w *Worker) Run() string { return fmt.Sprintf("run %s", w.name) }

func main() { fmt.Println((&Worker{name: "a"}).Run()) }
`,
  'README.md': '# sample\n',
};
