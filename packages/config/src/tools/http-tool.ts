import type { AnyTool, ToolContext } from '@agentctl/core';
import type { ToolDefinition } from '../definitions.js';
import { HAS_CREDENTIALS } from '../normalise/http-url.js';
import type { FactoryContext, PluginProblem } from '../registry.js';
import { fillArgs, fillArgsDeep } from './args-template.js';
import { closedParameters } from './closed-parameters.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;

type HttpDefinition = NonNullable<ToolDefinition['http']>;

// fetch refuses a URL holding a user or password, and its error quotes the URL whole; a default
// description would show it to the model.
const CREDENTIALS = `url ${HAS_CREDENTIALS}`;

// The url as written, its `{{ args.NAME }}` placeholders standing in as ARG; undefined if invalid.
function writtenUrl(url: string): URL | undefined {
  try {
    return new URL(url.replace(/\{\{[^}]*\}\}/g, 'ARG'));
  } catch {
    return undefined;
  }
}

/**
 * Why no call could ever fetch a url as written: not a URL, not http(s), or holding credentials
 * (undefined when it may). A url that starts with an argument is only known per call.
 */
function urlProblem(url: string): string | undefined {
  const written = writtenUrl(url);
  if (!written) return /^\s*\{\{/.test(url) ? undefined : 'url is not a valid URL';
  if (written.username || written.password) return CREDENTIALS;
  if (written.protocol !== 'http:' && written.protocol !== 'https:' && !/^\s*\{\{/.test(url))
    return `url is not an http:// or https:// URL (it is ${written.protocol})`;
  return undefined;
}

// Whether an argument writes the url's host, or all of the url, as written: read from the text, since
// the placeholder a parsed url holds could be part of a real host name (cargo.example.com).
function hostFromArgument(url: string): boolean {
  const authority = /^\s*[A-Za-z][A-Za-z0-9+.-]*:[/\\]*([^/\\?#]*)/.exec(url)?.[1];
  return authority === undefined ? /^\s*\{\{/.test(url) : authority.includes('{{');
}

// The host a url written without `allowed_hosts` may reach, or why it names none.
function urlHost(url: string): { host: string } | { problem: string } {
  if (hostFromArgument(url))
    return {
      problem: "the url's host comes from an argument; list the hosts it may reach in `allowed_hosts`",
    };
  const written = writtenUrl(url);
  if (!written) return { problem: 'url is not a valid URL' };
  return { host: written.host.toLowerCase() };
}

function hostsOf(spec: HttpDefinition, name: string): string[] {
  const problem = urlProblem(spec.url);
  if (problem) throw new Error(`tool ${name}: ${problem}`);
  if (spec.allowedHosts) return spec.allowedHosts.map((h) => h.toLowerCase());
  const found = urlHost(spec.url);
  if ('problem' in found) throw new Error(`tool ${name}: ${found.problem}`);
  return [found.host];
}

/**
 * The http tool kind's own rule, on `http:` as written: what compile refuses about its url is a
 * validate error too (a `${VAR}` url is checked resolved, by env-values and at compile).
 */
export function httpUrlRule(options: Record<string, unknown>): PluginProblem[] {
  const { url, allowed_hosts: allowedHosts } = options;
  if (typeof url !== 'string' || url.includes('$')) return [];
  const problem = urlProblem(url);
  if (problem) return [{ path: ['url'], message: problem }];
  if (allowedHosts !== undefined) return [];
  const found = urlHost(url);
  return 'problem' in found ? [{ path: ['url'], message: found.problem }] : [];
}

async function readCapped(response: Response, limit: number, signal: AbortSignal): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new Error(`response is ${declared} bytes, over max_response_bytes (${limit})`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    if (signal.aborted) {
      await reader.cancel();
      throw signal.reason;
    }
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`response is over max_response_bytes (${limit})`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An argument that would be a `.` or `..` path segment, which URLs resolve away. */
class PathSegmentError extends Error {}

// Each argument is exactly one path segment or query value: "/" and "?" are encoded, and since
// URL parsing resolves "." and ".." (encoded or not) as segments, those values are refused.
function fillUrl(template: string, args: Record<string, unknown>): string {
  const cut = template.search(/[?#]/);
  const path = cut < 0 ? template : template.slice(0, cut);
  const rest = cut < 0 ? '' : template.slice(cut);
  const segment = (value: string) => {
    if (value === '.' || value === '..')
      throw new PathSegmentError(`an argument is "${value}", which is not a path segment; it was not sent`);
    return encodeURIComponent(value);
  };
  return fillArgs(path, args, segment) + fillArgs(rest, args, encodeURIComponent);
}

/** A `kind: tool` with `http`: one request per call, to the allowed hosts only. */
export function httpTool(spec: ToolDefinition, _ctx: FactoryContext): AnyTool {
  const http = spec.http as HttpDefinition;
  const allowed = hostsOf(http, spec.name);
  const method = http.method;
  const limit = http.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  return {
    name: spec.name,
    description: spec.description ?? `${method} ${http.url.replace(/\?.*$/, '')}`,
    parameters: closedParameters(spec.parameters),
    needsApproval: spec.needsApproval,
    idempotent: spec.idempotent,
    timeout: spec.timeoutMs,
    async execute(args: Record<string, unknown>, call: ToolContext) {
      let url: URL;
      try {
        url = new URL(fillUrl(http.url, args));
      } catch (error) {
        if (error instanceof PathSegmentError) throw error;
        throw new Error(`the arguments do not make a valid URL for ${spec.name}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`only http and https URLs are allowed, not ${url.protocol}`);
      // An argument that makes a user or password part (`{{ args.who }}@host`): not sent, not quoted.
      if (url.username || url.password)
        throw new Error('the arguments put a user name or password into the URL; it was not sent');
      // `host` leaves out the scheme's default port, which a pinned `example.com:443` names.
      const port = url.port || (url.protocol === 'https:' ? '443' : '80');
      const names = [url.host, url.hostname, `${url.hostname}:${port}`].map((h) => h.toLowerCase());
      if (!names.some((name) => allowed.includes(name))) {
        throw new Error(`host ${url.host} is not in allowed_hosts (${allowed.join(', ')})`);
      }
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(http.headers)) headers[key] = fillArgs(value, args);
      let body: string | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        if (typeof http.body === 'string') body = fillArgs(http.body, args);
        else {
          body = JSON.stringify(http.body === undefined ? args : fillArgsDeep(http.body, args));
          if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
            headers['content-type'] = 'application/json';
        }
      }
      const response = await fetch(url, { method, headers, body, signal: call.signal, redirect: 'manual' });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}: redirects are not followed`);
      }
      const text = await readCapped(response, limit, call.signal);
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
      const isJson = /\bjson\b/.test(response.headers.get('content-type') ?? '');
      return { status: response.status, body: isJson && text !== '' ? JSON.parse(text) : text };
    },
  };
}
