/**
 * The process entry of `sightline` (dist/cli.js): composes the surfaces that share the command. The
 * CLI surface (src/cli) serves its verbs; `sightline mcp` is the MCP surface's (src/mcp/run.ts). Only
 * entries in src/bin may import more than one surface.
 */
import { runCli } from '../cli/main';
import { MCP_USAGE, runMcp } from '../mcp/run';

runCli(process.argv.slice(2), { mcp: { usage: MCP_USAGE, run: runMcp } });
