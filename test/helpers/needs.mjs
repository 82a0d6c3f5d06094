// Tests that need a real server or browser from Debian's packages (.ci/apt-packages). Where it is missing
// the test skips with one line naming what to install, so `npm test` passes after `npm ci` alone; under
// TRACEHOOK_TEST_NO_SKIP=1 (.ci/run sets it, having installed everything) a missing one fails instead,
// so CI proves every test ran.

/**
 * @param {string} reason what is missing and how to install it
 * @returns {string} the reason, for `t.skip()` or a test's `skip` option
 * @throws {Error} with the reason, under TRACEHOOK_TEST_NO_SKIP=1
 */
export function missing(reason) {
  if (process.env.TRACEHOOK_TEST_NO_SKIP === '1') throw new Error(`${reason} (TRACEHOOK_TEST_NO_SKIP=1 allows no skip)`);
  return reason;
}
