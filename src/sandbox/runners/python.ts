/** Python: run from source with `python3` (no compile step). */
import { createInterpretedRunner } from './runner.js';

/** The Python runner. */
export const pythonRunner = createInterpretedRunner('python3', 'python', 'Python');
