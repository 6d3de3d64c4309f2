/**
 * An offline programming-language detector for the audit: guesslang's model as shipped (weights
 * included) by `@vscode/vscode-languagedetection`, loaded lazily; plus the mapping from CoREB's
 * language names to the detector's ids.
 */
import { CorebError } from '../../core/errors.js';

/** One detection: the detector's best language id and its confidence, or null when it abstains. */
export interface LanguageGuess {
  languageId: string | null;
  confidence: number;
  /** The detector's top three ids, best first. */
  top: string[];
}

/** A loaded detector. */
export interface LanguageDetector {
  /** What it is, for reports. */
  readonly name: string;
  detect(code: string): Promise<LanguageGuess>;
  dispose(): void;
}

/**
 * Detector ids a declared language accepts (guesslang's ids are file extensions). C is accepted
 * for C++ (a C-style C++ solution is valid C++). Unknown languages map to themselves.
 */
export const DETECTOR_IDS: Readonly<Record<string, readonly string[]>> = {
  python: ['py'],
  java: ['java'],
  cpp: ['cpp', 'c'],
  'c++': ['cpp', 'c'],
  c: ['c', 'cpp'],
  ruby: ['rb'],
  go: ['go'],
  javascript: ['js'],
  typescript: ['ts'],
  rust: ['rs'],
  php: ['php'],
  csharp: ['cs'],
  sql: ['sql'],
  shell: ['sh'],
};

/** True when the detector's id is one of the ids `declared` accepts. */
export function detectorAgrees(declared: string, languageId: string): boolean {
  const ids = DETECTOR_IDS[declared.toLowerCase()] ?? [declared.toLowerCase()];
  return ids.includes(languageId);
}

interface ModelOperationsCtor {
  new (options?: {
    minContentSize?: number;
  }): {
    runModel(content: string): Promise<Array<{ languageId: string; confidence: number }>>;
    dispose(): void;
  };
}

/**
 * Loads the detector (`@vscode/vscode-languagedetection`, guesslang's TF.js model, offline).
 * It abstains (languageId null) on texts shorter than 20 characters, as the package does.
 * @throws CorebError `UNSUPPORTED` when the package is not installed.
 */
export async function loadLanguageDetector(): Promise<LanguageDetector> {
  let mod: { ModelOperations?: ModelOperationsCtor; default?: { ModelOperations?: ModelOperationsCtor } };
  try {
    mod = (await import('@vscode/vscode-languagedetection')) as typeof mod;
  } catch (e) {
    throw new CorebError(
      'UNSUPPORTED',
      'the language check needs the package @vscode/vscode-languagedetection (`npm install @vscode/vscode-languagedetection`), or pass --no-language-check',
      { cause: e },
    );
  }
  const Ctor = mod.ModelOperations ?? mod.default?.ModelOperations;
  if (Ctor === undefined) throw new CorebError('UNSUPPORTED', '@vscode/vscode-languagedetection has no ModelOperations export');
  const ops = new Ctor();
  return {
    name: '@vscode/vscode-languagedetection 1.x (guesslang model)',
    async detect(code: string): Promise<LanguageGuess> {
      const r = await ops.runModel(code);
      if (r.length === 0) return { languageId: null, confidence: 0, top: [] };
      return { languageId: r[0].languageId, confidence: r[0].confidence, top: r.slice(0, 3).map((x) => x.languageId) };
    },
    dispose: () => ops.dispose(),
  };
}
