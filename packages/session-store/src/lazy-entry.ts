import type { SessionEntry } from "./entries.js";
import { NONE, type SessionIndex } from "./session-index.js";

/**
 * Entries handed out without parsing them: `type`, `id` and (for a node with a parent) `parentId` come
 * from the index; any other field parses the entry on first access, once, through the index (so the
 * session's own parsed object is shared). What {@link Session.getBranch} returns: a walk over the tree
 * reads no body.
 */

/** The three fields the index answers without parsing. */
function indexField(
  index: SessionIndex,
  order: number,
  key: string | symbol,
): { value: unknown } | undefined {
  if (key === "type") return { value: index.typeOf(order) };
  if (key === "id") return { value: index.idOf(order) };
  if (key === "parentId") {
    const parent = index.parentOf(order);
    if (parent !== NONE) return { value: index.idOf(parent) };
  }
  return undefined;
}

/**
 * The entry at `order` as an object that parses itself on first use of a field the index does not hold
 * (see the module comment). An entry already parsed is returned as it is.
 *
 * Contract: reads, `in`, `Object.keys`, spreading and `JSON.stringify` behave as on the parsed entry; an
 * entry that cannot be read behaves as an object with only its `type`, `id` and `parentId`. Writes go to
 * the parsed entry.
 */
export function lazyEntry(index: SessionIndex, order: number): SessionEntry {
  const parsed = index.parsedEntry(order);
  if (parsed !== undefined) return parsed;
  let body: Record<string | symbol, unknown> | undefined;
  const full = (): Record<string | symbol, unknown> => {
    if (body === undefined) {
      const parent = index.parentOf(order);
      body = (index.entry(order) as Record<string | symbol, unknown> | undefined) ?? {
        type: index.typeOf(order),
        id: index.idOf(order),
        parentId: parent === NONE ? null : index.idOf(parent),
      };
    }
    return body;
  };
  return new Proxy({} as Record<string | symbol, unknown>, {
    get: (_target, key) => indexField(index, order, key)?.value ?? full()[key],
    has: (_target, key) => indexField(index, order, key) !== undefined || key in full(),
    ownKeys: () => Reflect.ownKeys(full()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(full(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    set: (_target, key, value) => Reflect.set(full(), key, value),
    deleteProperty: (_target, key) => Reflect.deleteProperty(full(), key),
    getPrototypeOf: () => Object.prototype,
  }) as unknown as SessionEntry;
}
