import { runMcp } from './run';
import { UsageError } from '../cli/args';

runMcp(process.argv.slice(2)).catch(e => {
  process.stderr.write(`sightline mcp: ${(e as Error).message}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
