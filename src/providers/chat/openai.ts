/**
 * `openai`: OpenAI-compatible `POST /chat/completions` (OpenAI, vLLM, SGLang, llama.cpp server,
 * LiteLLM, OpenRouter, Ollama's /v1). Request `{model, messages, max_tokens, temperature?, seed?}`;
 * reply `choices[0].message.content`, `finish_reason`, `usage.{prompt_tokens, completion_tokens}`.
 */
import type { ChatModel } from '../../core/chat.js';
import type { ProviderContext } from '../types.js';
import { ResponseShapeError } from '../http/validate.js';
import { createHttpChatModel, tokenCount, type ChatWireSpec } from './chat-model.js';
import type { ChatModelConfig } from './config.js';

/** Wire description (https://platform.openai.com/docs/api-reference/chat/create). */
export const OPENAI_CHAT: ChatWireSpec = {
  name: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultApiKeyEnv: 'OPENAI_API_KEY',
  keyRequired: true,
  auth: (key) => ({ authorization: `Bearer ${key}` }),
  request: (model, r) => ({
    path: '/chat/completions',
    body: {
      model,
      messages: r.messages,
      max_tokens: r.maxTokens,
      ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
      ...(r.seed !== undefined ? { seed: r.seed } : {}),
    },
  }),
  reply: (json) => {
    const j = json as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>; usage?: Record<string, unknown> } | null;
    const choice = Array.isArray(j?.choices) ? j.choices[0] : undefined;
    const content = choice?.message?.content;
    if (typeof content !== 'string') throw new ResponseShapeError('`choices[0].message.content` is not a string');
    return {
      text: content,
      finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : '',
      usage: { inputTokens: tokenCount(j?.usage?.prompt_tokens), outputTokens: tokenCount(j?.usage?.completion_tokens) },
    };
  },
};

/** Creates an OpenAI-compatible chat model. */
export function create(config: ChatModelConfig, context: ProviderContext): ChatModel {
  return createHttpChatModel(OPENAI_CHAT, config, context);
}
