/** `coreb cache`: not built yet (see the open issues). */
import { CorebError } from '../../core/errors.js';
import type { Command } from '../command.js';

const command: Command = {
  summary: '(not available yet)',
  usage: 'coreb cache',
  async run() {
    throw new CorebError('UNSUPPORTED', '`coreb cache` is not implemented in this build yet.');
  },
};
export default command;
