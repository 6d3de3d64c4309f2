/** The runner of every judged language, by language (a static table; each runner is a few commands). */
import type { ExecLanguage } from '../../core/execution.js';
import { cppRunner } from './cpp.js';
import { goRunner } from './go.js';
import { javaRunner } from './java.js';
import { pythonRunner } from './python.js';
import type { LanguageRunner } from './runner.js';
import { rubyRunner } from './ruby.js';

export type { BuildContext, LanguageRunner } from './runner.js';

/** Runners by language. */
export const RUNNERS: Readonly<Record<ExecLanguage, LanguageRunner>> = {
  python: pythonRunner,
  ruby: rubyRunner,
  cpp: cppRunner,
  go: goRunner,
  java: javaRunner,
};
