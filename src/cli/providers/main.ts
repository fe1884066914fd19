/**
 * `sightline provider NAME`: first-party external reference providers. Each reads the provider protocol
 * JSON (version 1) on stdin and writes `{ "edges": [...], "diagnostics": [...] }` on stdout; messages go
 * to stderr. Exit codes: 0 ok, 1 the provider failed (tool missing, indexer failed, timed out), 2 usage
 * error or invalid protocol input.
 *
 *   typescript          TypeScript language service (findReferences), typescript loaded at run time
 *   python              pyright language server over LSP stdio (references, optional call hierarchy)
 *   rust-analyzer-scip  `rust-analyzer scip .`, then the SCIP index
 *   java-scip           `scip-java index`, then the SCIP index
 *   scip                an existing SCIP index (--scip FILE), any language
 *
 * Every provider takes --timeout-ms N: an overall deadline; when it passes, child processes are killed
 * and the provider exits 1 with a message on stderr.
 */
import { parse, UsageError } from '../args';
import { Deadline, parseInput, ProviderError, readStdin, type ProviderOutput } from './common';

export const PROVIDER_USAGE = `usage: sightline provider NAME [--timeout-ms N] [options] < input.json > output.json

providers:
  typescript          TypeScript language service references (typescript from the repo, else Sightline's)
                      [--no-diagnostics]
  python              pyright language server references over LSP (pyright from the repo, else Sightline's)
                      [--lsp-startup-delay-ms N] [--call-hierarchy]
  rust-analyzer-scip  runs \`rust-analyzer scip .\` in the repo and maps the SCIP index [--scip FILE]
  java-scip           runs \`scip-java index\` in the repo and maps the SCIP index [--scip FILE]
  scip                maps an existing SCIP index (--scip FILE required)

stdin:  {"protocol_version":1,"repo":"/abs/root","repo_id":"…","provider":"…","symbols":[…],"chunks":[…]}
stdout: {"edges":[{"from_id","to_id","kind","confidence","evidence"}],"diagnostics":[…]}
exit codes: 0 ok, 1 provider failed or timed out, 2 usage error or invalid input`;

const NAMES = ['typescript', 'python', 'rust-analyzer-scip', 'java-scip', 'scip'] as const;
type Name = typeof NAMES[number];

function intOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got ${v}`);
  return n;
}

export async function runProvider(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') { process.stdout.write(PROVIDER_USAGE + '\n'); return 0; }
  if (!(NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown provider ${name}; known: ${NAMES.join(', ')}`);
  const provider = name as Name;
  const { values, positionals } = parse(rest, {
    'timeout-ms': { type: 'string' }, 'lsp-startup-delay-ms': { type: 'string' }, scip: { type: 'string' },
    'no-diagnostics': { type: 'boolean' }, 'call-hierarchy': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) { process.stdout.write(PROVIDER_USAGE + '\n'); return 0; }
  if (positionals.length) throw new UsageError(`provider ${name} takes no positional arguments (got ${positionals.join(' ')})`);
  if (name === 'scip' && !values.scip) throw new UsageError('provider scip needs --scip FILE');
  const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms');
  const startupDelay = intOption(values['lsp-startup-delay-ms'], 'lsp-startup-delay-ms') ?? 0;
  if (process.stdin.isTTY) throw new UsageError(`provider ${name} reads the protocol JSON on stdin`);

  const deadline = new Deadline(timeoutMs);
  try {
    const output = await deadline.race((async (): Promise<ProviderOutput> => {
      const input = parseInput(await readStdin());
      deadline.check();
      switch (provider) {
        case 'typescript': {
          const { runTypeScriptProvider } = await import('./typescript');
          return runTypeScriptProvider(input, deadline, { diagnostics: !values['no-diagnostics'] });
        }
        case 'python': {
          const { runPythonProvider } = await import('./python');
          return runPythonProvider(input, deadline, { startupDelayMs: startupDelay, callHierarchy: !!values['call-hierarchy'] });
        }
        case 'rust-analyzer-scip': case 'java-scip': case 'scip': {
          const { runScipProvider } = await import('./scip');
          return runScipProvider(input, deadline, { indexer: provider === 'scip' ? undefined : provider, scipFile: values.scip });
        }
      }
    })());
    deadline.check();
    process.stdout.write(JSON.stringify(output) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof ProviderError) {
      process.stderr.write(`sightline provider ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  } finally {
    deadline.dispose();
    // A language server or stream that outlives the answer must not keep the provider alive.
    setTimeout(() => process.exit(), 1500).unref();
  }
}
