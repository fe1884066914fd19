/**
 * `sightline provider NAME`: the command-line entry of the first-party reference providers (the
 * adapters live in src/core/providers/adapters/). Each reads the provider protocol JSON (version 1) on
 * stdin and writes `{ "edges": [...], "diagnostics": [...] }` on stdout; messages go to stderr. Exit
 * codes: 0 ok, 1 the provider failed (tool missing, indexer failed, timed out), 2 usage error or invalid
 * protocol input.
 *
 * Every provider takes --timeout-ms N: an overall deadline; when it passes, child processes are killed
 * and the provider exits 1 with a message on stderr.
 */
import { intOption, parse, UsageError } from '../surface/options';
import { Deadline, parseInput, ProviderError, readStdin, type ProviderOutput } from '../core/providers/adapters/common';
import { ADAPTER_NAMES, runAdapter, type AdapterName } from '../core/providers/adapters';

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

export async function runProvider(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') { process.stdout.write(PROVIDER_USAGE + '\n'); return 0; }
  if (!(ADAPTER_NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown provider ${name}; known: ${ADAPTER_NAMES.join(', ')}`);
  const provider = name as AdapterName;
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
      return runAdapter(provider, input, deadline, {
        diagnostics: !values['no-diagnostics'], startupDelayMs: startupDelay, callHierarchy: !!values['call-hierarchy'], scipFile: values.scip,
      });
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
