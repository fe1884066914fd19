// The environment for an `npm install` that the test set-up runs itself (test/vscode/setup.mjs,
// test/conformance/run.mjs).
//
// Under `npm test` these scripts run as a lifecycle script of the outer npm, which exports a description
// of itself to its children: npm_config_user_agent ("npm/11 node/v20 …"), npm_execpath,
// npm_node_execpath and NODE, npm_lifecycle_*, npm_package_* (this project's package.json),
// npm_config_prefix / global_prefix / local_prefix, npm_config_node_gyp, every npmrc value as
// npm_config_*, INIT_CWD, and this project's node_modules/.bin folders plus its node-gyp shim on PATH.
// A nested npm takes those npm_config_* values as its own configuration, and its scripts see them as if
// they described the nested npm. That breaks the code-server install: the nested npm runs on Node 24,
// but it re-exports the inherited user agent, and code-server's postinstall reads the Node major from
// npm_config_user_agent ("requires node v24 … you are on node v20"). Run directly
// (`node test/vscode/setup.mjs`), none of this is there, which is why only `npm test` failed.
//
// So the nested install gets the environment it would get when run from a shell: every npm_* variable
// goes, and so do INIT_CWD, npm's NODE and npm's PATH entries, except the settings that say where and
// how to fetch packages and which npmrc files to read. Those a user or CI sets on purpose
// (npm_config_cache=… npm test, a registry mirror, a proxy, a CA file); when they come from an npmrc
// file instead, they are the values the nested npm would read there anyway. Everything else the nested
// npm works out again from the npmrc files and the Node it runs on.

import { delimiter } from 'node:path';

/** npm settings (normalised: lower case, `-` as `_`) that pass through to a nested npm. */
const KEEP = new Set([
  'cache', 'prefer_offline', 'prefer_online', 'offline',
  'registry', 'userconfig', 'globalconfig',
  'proxy', 'https_proxy', 'noproxy', 'local_address',
  'ca', 'cafile', 'strict_ssl',
  'fetch_retries', 'fetch_retry_factor', 'fetch_retry_mintimeout', 'fetch_retry_maxtimeout', 'fetch_timeout',
  'maxsockets',
]);
const NPM_CONFIG = /^npm_config_(.*)$/i;

/** One of KEEP, or a scoped registry (`@scope:registry`) or per-registry setting (`//host/:…`): npm never exports those, so the user set them. */
function keep(setting) {
  const s = setting.toLowerCase().replace(/-/g, '_');
  return KEEP.has(s) || s.startsWith('@') || s.startsWith('//');
}

/** PATH entries that npm adds for its scripts: node_modules/.bin of the package and its parents, and npm's node-gyp shim. */
const NPM_PATH_ENTRY = /[\\/]node_modules[\\/]\.bin[\\/]?$|[\\/]node-gyp-bin[\\/]?$/;

/**
 * `env` without what an outer npm (or yarn/pnpm, which set npm_config_user_agent too) exported to its
 * scripts; see the header. Returns a new object; `env` is not changed.
 */
export function nestedNpmEnv(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    const m = NPM_CONFIG.exec(k);
    if (m ? !keep(m[1]) : /^npm_/i.test(k)) continue;
    if (k === 'INIT_CWD') continue;
    if (k === 'NODE' && env.npm_node_execpath && v === env.npm_node_execpath) continue;
    out[k] = v;
  }
  for (const k of Object.keys(out)) {
    if (/^path$/i.test(k)) out[k] = out[k].split(delimiter).filter(p => p && !NPM_PATH_ENTRY.test(p)).join(delimiter);
  }
  return out;
}
