#!/usr/bin/env node
/** The `coreb` entry point: every command (commands.ts) through {@link runCli}. */
import { COMMANDS } from './commands.js';
import { runCli } from './run-cli.js';

runCli(COMMANDS);
