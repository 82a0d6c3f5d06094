// Unit tests of the one patch helper (src/patch/wrap.ts): wrap/unwrap, idempotence, markers.
// Run: npm run build && node --test test/unit/patch.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { isPatched, markWrapper, patchedSites, PATCHED, unwrap, wrap } from '../../dist/patch/wrap.js';

const site = (id) => ({ component: 'test', id, otherwise: 'nothing' });
const adds = (n) => (original) =>
  function (...args) {
    return original.apply(this, args) + n;
  };

test('wrap replaces the method, keeps name and length, and unwrap puts back the own property as it was', () => {
  const target = {
    twice(a, b) {
      return 2 * a + 0 * b;
    },
  };
  const original = target.twice;
  assert.equal(wrap(target, 'twice', site('t.twice'), adds(1)), true);
  assert.notEqual(target.twice, original);
  assert.equal(target.twice(3, 0), 7);
  assert.equal(target.twice.name, 'twice');
  assert.equal(target.twice.length, 2);
  assert.equal(Object.getOwnPropertyDescriptor(target, 'twice').enumerable, true, 'enumerability kept');
  assert.equal(unwrap(target, 'twice', site('t.twice')), true);
  assert.equal(target.twice, original);
  assert.deepEqual(Object.getOwnPropertyDescriptor(target, 'twice'), { value: original, writable: true, enumerable: true, configurable: true });
});

test('an inherited method becomes a non-enumerable own property, and unwrap deletes it again', () => {
  class Base {
    hello() {
      return 'hi';
    }
  }
  const obj = new Base();
  wrap(
    obj,
    'hello',
    site('t.hello'),
    (o) =>
      function () {
        return o.call(this) + '!';
      },
  );
  assert.equal(obj.hello(), 'hi!');
  assert.equal(Object.keys(obj).length, 0);
  unwrap(obj, 'hello', site('t.hello'));
  assert.equal(Object.hasOwn(obj, 'hello'), false);
  assert.equal(obj.hello, Base.prototype.hello);
});

test('wrapping twice with the same site id is a no-op; another site wraps around it', () => {
  const target = { f: () => 1 };
  assert.equal(wrap(target, 'f', site('a'), adds(10)), true);
  assert.equal(wrap(target, 'f', site('a'), adds(10)), false);
  assert.equal(target.f(), 11);
  assert.equal(wrap(target, 'f', site('b'), adds(100)), true);
  assert.equal(wrap(target, 'f', site('a'), adds(10)), false, 'a is still in the chain under b');
  assert.equal(target.f(), 111);
  assert.deepEqual(patchedSites(target.f), ['b', 'a']);
});

test("the wrapper carries shimmer's markers and tracehook's site id", () => {
  const target = { f() {} };
  const original = target.f;
  wrap(
    target,
    'f',
    site('marked'),
    (o) =>
      function () {
        return o();
      },
  );
  assert.equal(target.f.__wrapped, true);
  assert.equal(target.f.__original, original);
  assert.equal(typeof target.f.__unwrap, 'function');
  assert.equal(target.f[Symbol.for('tracehook.patched')], 'marked');
  assert.equal(PATCHED, Symbol.for('tracehook.patched'));
  assert.equal(isPatched(target.f, 'marked'), true);
  assert.equal(isPatched(original), false);
  assert.deepEqual(Object.keys(target.f), [], 'markers are not enumerable');
  // shimmer's own unwrap convention works on it too.
  target.f.__unwrap();
  assert.equal(target.f, original);
});

test('unwrap leaves a wrapper that another agent wrapped since (taking it out would drop theirs)', () => {
  const target = { f: () => 1 };
  wrap(target, 'f', site('ours'), adds(1));
  const ours = target.f;
  target.f = Object.assign(() => ours() + 1000, { __wrapped: true, __original: ours });
  assert.equal(unwrap(target, 'f', site('ours')), false);
  assert.equal(target.f(), 1002);
});

test('a missing target or method, or a wrapper returning no function, changes nothing and never throws', () => {
  assert.equal(wrap(undefined, 'f', site('x'), adds(1)), false);
  assert.equal(wrap({}, 'f', site('x'), adds(1)), false);
  const target = { f: () => 1 };
  assert.equal(
    wrap(target, 'f', site('x'), () => 42),
    false,
  );
  assert.equal(target.f(), 1);
  assert.equal(
    wrap(target, 'f', site('y'), () => {
      throw new Error('boom');
    }),
    false,
  );
  assert.equal(target.f(), 1);
  const frozen = Object.freeze({ f: () => 1 });
  assert.equal(wrap(frozen, 'f', site('z'), adds(1)), false);
  assert.equal(unwrap({}, 'f', site('x')), false);
});

test('a missing target is reported at DEBUG level with the site id and what is lost', () => {
  const code = `import('${new URL('../../dist/patch/wrap.js', import.meta.url).href}').then(({ wrap }) => wrap({}, 'gone', { component: 'probe', id: 'probe.gone', otherwise: 'probes are lost' }, (o) => o))`;
  const debug = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, OTEL_LOG_LEVEL: 'DEBUG' }, encoding: 'utf8' });
  assert.match(debug.stderr, /\[tracehook\] probe: probe\.gone: gone not found \(Node\.js v[\d.]+\), not patched: probes are lost/);
  const quiet = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, OTEL_LOG_LEVEL: 'WARN' }, encoding: 'utf8' });
  assert.equal(quiet.stderr, '');
});

test('classes can be wrapped (subclass replacement) and markWrapper marks a replacement made elsewhere', () => {
  const mod = {
    Thing: class Thing {
      constructor(a, b) {
        this.v = a + b;
      }
    },
  };
  const Original = mod.Thing;
  wrap(
    mod,
    'Thing',
    site('t.Thing'),
    (O) =>
      class Thing extends O {
        constructor(a, b) {
          super(a, b);
          this.traced = true;
        }
      },
  );
  const t = new mod.Thing(1, 2);
  assert.equal(t.v, 3);
  assert.equal(t.traced, true);
  assert.ok(t instanceof Original);
  assert.equal(mod.Thing.name, 'Thing');
  assert.equal(mod.Thing.length, 2);
  // A subclass of the wrapper is not itself a wrapper.
  class Sub extends mod.Thing {}
  assert.equal(isPatched(Sub), false);
  const factory = function fastify(opts) {
    return opts;
  };
  const replacement = markWrapper((...args) => factory(...args), factory, 't.factory');
  assert.equal(replacement.name, 'fastify');
  assert.equal(replacement.length, 1);
  assert.deepEqual(patchedSites(replacement), ['t.factory']);
});

test('an anonymous original is named after its property, so its stack frame prints as it did unwrapped; the wrapper keeps the empty name', () => {
  class Loader {}
  // As Node.js 22+ defines Module.prototype.load: an anonymous function assigned to the prototype.
  Loader.prototype.load = [
    function () {
      throw new Error('in load');
    },
  ][0];
  const original = Loader.prototype.load;
  assert.equal(original.name, '');
  const frameOf = () => {
    try {
      new Loader().load();
    } catch (err) {
      return err.stack.split('\n')[1].trim().replace(/ \(.*/, '');
    }
  };
  assert.equal(frameOf(), 'at Loader.load');
  wrap(
    Loader.prototype,
    'load',
    site('t.load'),
    (o) =>
      function () {
        return Reflect.apply(o, this, arguments);
      },
  );
  assert.equal(Loader.prototype.load.name, '', "the app sees the original's name");
  assert.equal(original.name, 'load');
  assert.equal(frameOf(), 'at Loader.load', 'not Loader.<anonymous>');
});
