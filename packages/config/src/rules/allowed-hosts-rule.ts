import type { PluginProblem } from '../registry.js';
import { excerpt } from './excerpt.js';

// The host of an entry written as a URL (`https://api.example.com/v1`), to say what to write instead.
function hostOf(entry: string): string | undefined {
  try {
    return new URL(entry.includes('://') ? entry : `http://${entry}`).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `allowed_hosts` holds host names (`example.com`, `*.example.com`, `host:port`): an entry written
 * as a URL, or with a path, matches no request, so every call would be refused while the YAML
 * reads as if it were allowed.
 */
export function allowedHostsRule(options: Record<string, unknown>): PluginProblem[] {
  const hosts = options.allowed_hosts;
  if (!Array.isArray(hosts)) return [];
  const problems: PluginProblem[] = [];
  hosts.forEach((entry, i) => {
    if (typeof entry !== 'string' || !/[/?#@]/.test(entry)) return;
    const host = hostOf(entry);
    problems.push({
      path: ['allowed_hosts', i],
      message: `\`${excerpt(entry)}\` is not a host name and matches no request; write ${host ? `\`${excerpt(host)}\`` : 'the host name'} (a port may follow: host:port)`,
    });
  });
  return problems;
}
