import { type AgentCard, AgentCard as AgentCardJson } from '@a2a-js/sdk';
import type { AgentInfo } from './agent-source.js';

/** The path of an agent's A2A JSON-RPC endpoint; its card is below it at `/.well-known/agent-card.json`. */
export function a2aPath(agent: string): string {
  return `/a2a/${encodeURIComponent(agent)}`;
}

/**
 * The A2A card of one agent: one skill (the agent itself), JSON-RPC at `/a2a/{agent}` for
 * protocol 1.0 and 0.3, streaming on, a bearer scheme when the server has tokens.
 */
export function agentCard(agent: AgentInfo, origin: string, bearer: boolean): AgentCard {
  const url = `${origin}${a2aPath(agent.name)}`;
  const iface = (protocolVersion: string) => ({
    url,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion,
  });
  const security = bearer ? [{ schemes: { bearer: { list: [] } } }] : [];
  return {
    name: agent.name,
    description: agent.description ?? agent.name,
    supportedInterfaces: [iface('1.0'), iface('0.3')],
    provider: undefined,
    version: '1',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: '', scheme: 'Bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: security,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: agent.name,
        name: agent.name,
        description: agent.description ?? agent.name,
        tags: ['agentctl'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  } as AgentCard;
}

/** The card as JSON, with the 0.3 fields (`url`, `protocolVersion`) beside the 1.0 ones for older clients. */
export function agentCardJson(card: AgentCard): Record<string, unknown> {
  const json = AgentCardJson.toJSON(card) as Record<string, unknown>;
  return {
    ...json,
    url: card.supportedInterfaces[0]?.url,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
  };
}
