/** `coreb metrics`: not built yet (see the open issues). */
import { CorebError } from '../../core/errors.js';
import type { Command } from '../command.js';

const command: Command = {
  summary: '(not available yet)',
  usage: 'coreb metrics',
  async run() {
    throw new CorebError('UNSUPPORTED', '`coreb metrics` is not implemented in this build yet.');
  },
};
export default command;
