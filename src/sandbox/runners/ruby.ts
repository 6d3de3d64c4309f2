/** Ruby: run from source with `ruby` (no compile step). */
import { createInterpretedRunner } from './runner.js';

/** The Ruby runner. */
export const rubyRunner = createInterpretedRunner('ruby', 'ruby', 'Ruby');
