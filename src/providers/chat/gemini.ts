/**
 * `gemini`: `POST /v1beta/models/{model}:generateContent` with `x-goog-api-key`. Messages become
 * `contents` (assistant -> role `model`), system messages `systemInstruction`; sampling goes in
 * `generationConfig {temperature, maxOutputTokens, seed}`; reply text is the first candidate's parts
 * joined; usage `usageMetadata.{promptTokenCount, candidatesTokenCount}`.
 */
import type { ChatModel } from '../../core/chat.js';
import type { ProviderContext } from '../types.js';
import { ResponseShapeError } from '../http/validate.js';
import { createHttpChatModel, tokenCount, type ChatWireSpec } from './chat-model.js';
import type { ChatModelConfig } from './config.js';

/** Wire description (https://ai.google.dev/api/generate-content). */
export const GEMINI_CHAT: ChatWireSpec = {
  name: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  defaultApiKeyEnv: 'GEMINI_API_KEY',
  keyRequired: true,
  auth: (key) => ({ 'x-goog-api-key': key }),
  request: (model, r) => {
    const system = r.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const name = model.startsWith('models/') ? model.slice(7) : model;
    return {
      path: `/models/${encodeURIComponent(name)}:generateContent`,
      body: {
        contents: r.messages
          .filter((m) => m.role !== 'system')
          .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
        ...(system !== '' ? { systemInstruction: { parts: [{ text: system }] } } : {}),
        generationConfig: {
          maxOutputTokens: r.maxTokens,
          ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
          ...(r.seed !== undefined ? { seed: r.seed } : {}),
        },
      },
    };
  },
  reply: (json) => {
    const j = json as {
      candidates?: Array<{ content?: { parts?: unknown }; finishReason?: unknown }>;
      usageMetadata?: Record<string, unknown>;
    } | null;
    const c = Array.isArray(j?.candidates) ? j.candidates[0] : undefined;
    if (c === undefined) throw new ResponseShapeError('no `candidates` in the reply (blocked prompt or empty answer)');
    const parts = c.content?.parts;
    const text = Array.isArray(parts)
      ? (parts as Array<{ text?: unknown; thought?: unknown }>)
          .filter((p) => typeof p?.text === 'string' && p.thought !== true)
          .map((p) => p.text as string)
          .join('')
      : '';
    return {
      text,
      finishReason: typeof c.finishReason === 'string' ? c.finishReason : '',
      usage: { inputTokens: tokenCount(j?.usageMetadata?.promptTokenCount), outputTokens: tokenCount(j?.usageMetadata?.candidatesTokenCount) },
    };
  },
};

/** Creates a Gemini generateContent chat model. */
export function create(config: ChatModelConfig, context: ProviderContext): ChatModel {
  return createHttpChatModel(GEMINI_CHAT, config, context);
}
