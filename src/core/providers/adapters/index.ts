/**
 * The first-party reference providers (compiler-grade edges), beside the protocol they speak
 * (../protocol.ts). Each maps one tool's results onto the input symbols (common.ts: endpoint rules,
 * edge collection, deadline and child-process trees):
 *
 *   typescript          TypeScript language service (findReferences), typescript loaded at run time
 *   python              pyright language server over LSP stdio (references, optional call hierarchy)
 *   rust-analyzer-scip  `rust-analyzer scip .`, then the SCIP index
 *   java-scip           `scip-java index`, then the SCIP index
 *   scip                an existing SCIP index (--scip FILE), any language
 *
 * They run as `sightline provider NAME` (src/cli/provider.ts: options, stdin/stdout, exit codes), a
 * child process of index_repo like any external provider.
 */
import type { Deadline, ProviderInput, ProviderOutput } from './common';

export const ADAPTER_NAMES = ['typescript', 'python', 'rust-analyzer-scip', 'java-scip', 'scip'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

export interface AdapterOptions {
  /** typescript: report the language service's diagnostics */
  diagnostics: boolean;
  /** python: wait this long after the language server starts */
  startupDelayMs: number;
  /** python: also ask the call hierarchy */
  callHierarchy: boolean;
  /** scip adapters: an existing index instead of running the indexer */
  scipFile: string | undefined;
}

/** Runs one adapter on a protocol input (each adapter's code is loaded only when it runs). */
export async function runAdapter(name: AdapterName, input: ProviderInput, deadline: Deadline, options: AdapterOptions): Promise<ProviderOutput> {
  switch (name) {
    case 'typescript': {
      const { runTypeScriptProvider } = await import('./typescript');
      return runTypeScriptProvider(input, deadline, { diagnostics: options.diagnostics });
    }
    case 'python': {
      const { runPythonProvider } = await import('./python');
      return runPythonProvider(input, deadline, { startupDelayMs: options.startupDelayMs, callHierarchy: options.callHierarchy });
    }
    case 'rust-analyzer-scip': case 'java-scip': case 'scip': {
      const { runScipProvider } = await import('./scip');
      return runScipProvider(input, deadline, { indexer: name === 'scip' ? undefined : name, scipFile: options.scipFile });
    }
  }
}
