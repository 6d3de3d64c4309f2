/**
 * `anthropic`: the Messages API `POST /v1/messages` with `x-api-key` and `anthropic-version:
 * 2023-06-01`. System messages go to the top-level `system` field; reply text is the `text` blocks
 * of `content` joined; usage `{input_tokens, output_tokens}`; stop reason `stop_reason`.
 */
import type { ChatModel } from '../../core/chat.js';
import type { ProviderContext } from '../types.js';
import { ResponseShapeError } from '../http/validate.js';
import { createHttpChatModel, tokenCount, type ChatWireSpec } from './chat-model.js';
import type { ChatModelConfig } from './config.js';

/** Wire description (https://docs.anthropic.com/en/api/messages). */
export const ANTHROPIC_CHAT: ChatWireSpec = {
  name: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  defaultApiKeyEnv: 'ANTHROPIC_API_KEY',
  keyRequired: true,
  auth: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
  request: (model, r) => {
    const system = r.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    return {
      path: '/messages',
      body: {
        model,
        max_tokens: r.maxTokens,
        ...(system !== '' ? { system } : {}),
        messages: r.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
        ...(r.temperature !== undefined ? { temperature: Math.min(1, r.temperature) } : {}),
      },
    };
  },
  reply: (json) => {
    const j = json as { content?: unknown; stop_reason?: unknown; usage?: Record<string, unknown> } | null;
    if (!Array.isArray(j?.content)) throw new ResponseShapeError('`content` is not an array of blocks');
    const text = (j.content as Array<{ type?: unknown; text?: unknown }>)
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text as string)
      .join('');
    return {
      text,
      finishReason: typeof j.stop_reason === 'string' ? j.stop_reason : '',
      usage: { inputTokens: tokenCount(j.usage?.input_tokens), outputTokens: tokenCount(j.usage?.output_tokens) },
    };
  },
};

/** Creates an Anthropic Messages chat model. */
export function create(config: ChatModelConfig, context: ProviderContext): ChatModel {
  return createHttpChatModel(ANTHROPIC_CHAT, config, context);
}
