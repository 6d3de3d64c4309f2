/**
 * `ollama`: Ollama's native `POST /api/chat` with `stream: false` (default base
 * http://127.0.0.1:11434). Sampling in `options {temperature, num_predict, seed}`; reply
 * `message.content`, `done_reason`, usage `prompt_eval_count` / `eval_count`.
 */
import type { ChatModel } from '../../core/chat.js';
import type { ProviderContext } from '../types.js';
import { ResponseShapeError } from '../http/validate.js';
import { createHttpChatModel, tokenCount, type ChatWireSpec } from './chat-model.js';
import type { ChatModelConfig } from './config.js';

/** Wire description (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion). */
export const OLLAMA_CHAT: ChatWireSpec = {
  name: 'ollama',
  defaultBaseUrl: 'http://127.0.0.1:11434',
  keyRequired: false,
  auth: (key) => ({ authorization: `Bearer ${key}` }),
  request: (model, r) => ({
    path: '/api/chat',
    body: {
      model,
      messages: r.messages,
      stream: false,
      options: {
        num_predict: r.maxTokens,
        ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
        ...(r.seed !== undefined ? { seed: r.seed } : {}),
      },
    },
  }),
  reply: (json) => {
    const j = json as { message?: { content?: unknown }; done_reason?: unknown; prompt_eval_count?: unknown; eval_count?: unknown } | null;
    const content = j?.message?.content;
    if (typeof content !== 'string') throw new ResponseShapeError('`message.content` is not a string');
    return {
      text: content,
      finishReason: typeof j?.done_reason === 'string' ? j.done_reason : '',
      usage: { inputTokens: tokenCount(j?.prompt_eval_count), outputTokens: tokenCount(j?.eval_count) },
    };
  },
};

/** Creates an Ollama chat model. */
export function create(config: ChatModelConfig, context: ProviderContext): ChatModel {
  return createHttpChatModel(OLLAMA_CHAT, config, context);
}
