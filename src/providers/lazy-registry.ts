/**
 * The lookup every provider registry shares (embedders, rerankers, chat models): a static table of
 * entries whose code loads only when chosen; an unknown name is refused naming the valid ones and
 * the closest.
 */
import { CorebError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';

/**
 * Loads the module of `name` from `table`.
 * @param what the kind of name in the error (`chat provider`).
 * @param validLabel the words before the valid names (`valid chat providers`).
 * @throws CorebError `NOT_FOUND` for a name the table does not have.
 */
export async function loadRegistered<M>(
  table: Readonly<Record<string, { load(): Promise<M> }>>,
  name: string,
  what: string,
  validLabel: string,
): Promise<M> {
  const entry = Object.hasOwn(table, name) ? table[name] : undefined;
  if (entry === undefined) {
    const names = Object.keys(table);
    throw new CorebError('NOT_FOUND', `unknown ${what} \`${name}\`; ${validLabel}: ${names.join(', ')}${didYouMean(name, names)}`);
  }
  return entry.load();
}
