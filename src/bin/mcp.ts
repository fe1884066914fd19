/** The process entry of the MCP server (dist/mcp.js): `node dist/mcp.js --workspace DIR …`. */
import { runMcp } from '../mcp/run';
import { UsageError } from '../surface/options';

runMcp(process.argv.slice(2)).catch(e => {
  process.stderr.write(`sightline mcp: ${(e as Error).message}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
