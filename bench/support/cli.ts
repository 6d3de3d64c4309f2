/** The coreb command as a user runs it (bin/coreb.js runs this bundle), for the benches that time it whole. */
import { fileURLToPath } from 'node:url';

/** dist/cli.mjs: the compiled modules bundled into one file by scripts/bundle-cli.mjs (`npm run build`). */
export const corebCli: string = fileURLToPath(new URL('../../cli.mjs', import.meta.url));
