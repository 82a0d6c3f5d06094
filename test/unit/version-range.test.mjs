// Unit tests of src/instrumentations/version-range.ts (the built dist/ module, called directly): the quick check of an
// instrumented package's version gives @opentelemetry/instrumentation's own answer whenever it gives one, and gives
// one for the ranges instrumentations declare.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { satisfies } from '@opentelemetry/instrumentation/build/src/semver.js';
import { satisfiesSimpleRange } from '../../dist/instrumentations/version-range.js';

// The supported versions declared by the instrumentations of auto-instrumentations-node and by tracehook's route
// instrumentation, as written in their packages.
const DECLARED = [
  '*',
  '^1.0.0',
  '^3.1.0',
  '^5.0.0',
  '^6.0.0',
  '>=0.3.0 <3',
  '>=0.5.5 <3',
  '>=1 <3',
  '>=1.0.0',
  '>=1.0.0 <2',
  '>=1.0.0 <3',
  '>=1.0.3',
  '>=1.11.0 <21',
  '>=1.3 <4',
  '>=1.4.2 <4',
  '>=14.0.0 <17',
  '>=17.0.0 <22',
  '>=2 <3',
  '>=2.0.0',
  '>=2.0.0 <2.4',
  '>=2.0.0 <3',
  '>=2.0.0 <4',
  '>=2.0.0 <6',
  '>=2.0.0 <7',
  '>=2.2.0 <3',
  '>=2.4.0 <3',
  '>=2.6.0 <4',
  '>=3 <4',
  '>=3 <5',
  '>=3.0.0 <4',
  '>=3.1.0 <3.35.0',
  '>=3.24.0',
  '>=3.3.0 <4',
  '>=3.35.0',
  '>=4 <5',
  '>=4.0.0 <12',
  '>=4.0.0 <6',
  '>=4.0.0 <6.4',
  '>=4.0.0 <8',
  '>=4.1.0 <13',
  '>=4.19.0 <7',
  '>=4.4.0 <5',
  '>=5.14.0 <11',
  '>=5.9.7 <10',
  '>=6.4.0 <8',
  '>=8.0.0 <13',
  '>=8.0.3 <9',
  '>= 6.7 < 8',
  '<4',
];

const number = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 25 }));
const release = fc.tuple(number, number, number).map((p) => p.join('.'));
const version = fc.oneof(
  { weight: 8, arbitrary: release },
  // Forms left to the full check.
  fc.constantFrom('1.2.3-beta.1', '2.0.0-0', 'v1.2.3', '01.2.3', '1.2', '1.2.3.4', '1.2.3+build', '', ' 1.2.3'),
);
const partial = fc.oneof(
  number.map(String),
  fc.tuple(number, number).map((p) => p.join('.')),
  release,
);
const op = fc.constantFrom('', '=', '>=', '<=', '>', '<', '^', '~', '==', '>= ', '< ');
// Mostly the forms decided here (so that most pairs are compared), and any other.
const decidable = fc.oneof(
  fc.tuple(fc.constantFrom('>=', '<', '>= ', '< '), partial).map(([o, p]) => o + p),
  fc.tuple(fc.constantFrom('', '=', '>=', '<=', '>', '<', '^'), release).map(([o, p]) => o + p),
);
const comparator = fc.oneof(
  { weight: 20, arbitrary: decidable },
  { weight: 10, arbitrary: fc.tuple(op, partial).map(([o, p]) => o + p) },
  fc.constantFrom('*', 'x', '1.x', '>=1.2.3-0', '<2.0.0-beta', '~1.2', 'v1.2.3', '>=01.2.3'),
);
const range = fc.oneof(
  { weight: 10, arbitrary: fc.array(comparator, { minLength: 1, maxLength: 3 }).map((c) => c.join(' ')) },
  fc.tuple(comparator, comparator).map(([a, b]) => `${a} || ${b}`),
  fc.tuple(partial, partial).map(([a, b]) => `${a} - ${b}`),
  fc.constantFrom('', ' ', '>=1  <2', ' >=1 <2 ', '>=1\t<2', '>=1<2'),
);

test('satisfiesSimpleRange: whenever it decides, it decides as @opentelemetry/instrumentation does', () => {
  let decided = 0;
  fc.assert(
    fc.property(version, range, (v, r) => {
      const quick = satisfiesSimpleRange(v, r);
      if (quick === undefined) return true;
      decided++;
      return quick === satisfies(v, r);
    }),
    { numRuns: 20_000 },
  );
  // About half of the generated pairs are of the decided forms (≈ 9,600 of 20,000): the comparison above is not vacuous.
  assert.ok(decided > 6_000, `only ${decided} of 20000 decided`);
});

test('satisfiesSimpleRange: decides every range instrumentations declare, at and around its bounds', () => {
  for (const r of DECLARED) {
    for (const v of ['0.0.0', '0.3.0', '1.0.0', '1.2.3', '2.3.9', '2.4.0', '3.34.9', '3.35.0', '4.0.0', '5.4.1', '6.3.99', '6.4.0', '8.0.3', '8.11.0', '9.0.0', '16.2.0', '21.0.0', '22.0.0']) {
      const quick = satisfiesSimpleRange(v, r);
      assert.notEqual(quick, undefined, `${v} in ${r} left undecided`);
      assert.equal(quick, satisfies(v, r), `${v} in ${r}`);
    }
  }
});

test('satisfiesSimpleRange: prereleases, wildcards other than *, || and hyphen ranges are left to the full check', () => {
  for (const [v, r] of [
    ['1.2.3-beta', '>=1'],
    ['1.2.3', '>=1.2.3-0'],
    ['1.2.3', '~1.2'],
    ['1.2.3', '1.x'],
    ['1.2.3', '>=1 || <0.5'],
    ['1.2.3', '1 - 2'],
    ['1.2.3', ''],
    ['1.2.3', '>1'],
    ['1.2.3', '^1'],
    [undefined, '*'],
    ['1.2.3', 5],
  ]) {
    assert.equal(satisfiesSimpleRange(v, r), undefined, `${v} in ${r}`);
  }
});
