/**
 * The lazily loaded table of chat-model providers: importing this module loads no provider code;
 * {@link createChatModel} imports only the chosen one.
 */
import { loadRegistered } from '../lazy-registry.js';
import type { ChatModel } from '../../core/chat.js';
import type { ProviderContext } from '../types.js';
import type { ChatModelConfig } from './config.js';

/** A chat provider module: one factory. */
export interface ChatProviderModule {
  create(config: ChatModelConfig, context: ProviderContext): ChatModel;
}

/** One registry entry. */
export interface ChatProviderEntry {
  /** One line for `coreb providers` and `coreb build --help`. */
  summary: string;
  /** Default API key variable, if any. */
  apiKeyEnv?: string;
  load(): Promise<ChatProviderModule>;
}

/** Provider name -> entry. */
export const CHAT_PROVIDERS = {
  openai: {
    summary: 'OpenAI-compatible POST /chat/completions (OpenAI, vLLM, SGLang, llama.cpp, LiteLLM, OpenRouter)',
    apiKeyEnv: 'OPENAI_API_KEY',
    load: () => import('./openai.js'),
  },
  anthropic: { summary: 'Anthropic Messages API POST /v1/messages', apiKeyEnv: 'ANTHROPIC_API_KEY', load: () => import('./anthropic.js') },
  gemini: { summary: 'Gemini POST /v1beta/models/{model}:generateContent', apiKeyEnv: 'GEMINI_API_KEY', load: () => import('./gemini.js') },
  ollama: { summary: 'Ollama native POST /api/chat (default http://127.0.0.1:11434)', load: () => import('./ollama.js') },
} as const satisfies Record<string, ChatProviderEntry>;

/** A registered chat provider name. */
export type ChatProviderName = keyof typeof CHAT_PROVIDERS;

/** Creates the chat model `config` describes, loading only its provider's code. */
export async function createChatModel(config: ChatModelConfig, context: ProviderContext): Promise<ChatModel> {
  const mod = await loadRegistered<ChatProviderModule>(CHAT_PROVIDERS, config.provider, 'chat provider', 'valid chat providers');
  return mod.create(config, context);
}
