/** The driver for an adapter's `driver` field (one place that names them). */
import type { AdapterConfig } from '../config';
import type { TemplateContext } from '../templates';
import { CommandDriver } from './command';
import { HttpDriver } from './http';
import { McpDriver } from './mcp';
import type { Driver } from './types';

export function createDriver(cfg: AdapterConfig, base: TemplateContext, root: string): Driver {
  switch (cfg.driver) {
    case 'mcp': return new McpDriver(cfg, base, root);
    case 'http': return new HttpDriver(cfg);
    case 'command': return new CommandDriver(cfg);
  }
}
export { AdapterCallError, type AdapterFailureCode, type Driver, type DriverRequest, type PeerTool } from './types';
export { McpDriver } from './mcp';
