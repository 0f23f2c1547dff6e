/**
 * What `f` throws, for assertions on an error's class, fields and message: an instance of `type`
 * is returned, anything else thrown is thrown again, and a return fails with "expected a <type>".
 */
export function thrownBy<E>(f: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    f();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}
