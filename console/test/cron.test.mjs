// The cron module: the scheduler's refusals in its words, its day rule, next runs in UTC and
// the spec in plain words (plugins/scheduler/README.md, "Cron").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCron, nextRuns, describeCron } from '../src/cron.js';

const at = (iso) => Date.parse(iso) / 1000;
const iso = (s) => new Date(s * 1000).toISOString().slice(0, 16);

test('refusals read as the scheduler words them', () => {
  const cases = [
    ['* * * *', 'a cron spec has five fields separated by spaces: minute hour day-of-month month day-of-week; this one has 4'],
    ['@daily', 'shorthands such as @daily are not accepted; write the five fields (minute hour day-of-month month day-of-week), for example 0 0 * * * for every day at midnight UTC'],
    ['0 24 * * *', 'hour field: 24 is out of range 0-23'],
    ['0 0 * JAN *', 'month field: names such as JAN are not accepted; use the numbers 1-12'],
    ['0 0 * * MON', 'day of week field: names such as MON are not accepted; use the numbers 0-7 (Sunday is 0 or 7)'],
    ['0 0 L * *', 'day of month field: L and W are not accepted'],
    ['0 0 * * 1#2', 'day of week field: # is not accepted'],
    ['0 0 ? * *', 'day of month field: ? is not accepted; use *'],
    ['*/0 * * * *', 'minute field: a step is 1 to 59, not 0'],
    ['*/60 * * * *', 'minute field: a step is 1 to 59, not 60'],
    ['*/ * * * *', 'minute field: "*/" has no step after the /'],
    ['5/15 * * * *', 'minute field: a step goes after * or a range, as */15 or 5-59/15, not after a single number'],
    ['0 17-9 * * *', 'hour field: the range 17-9 runs backwards; ranges do not wrap around, so write 9-17 or a list of two ranges'],
    ['1,,2 * * * *', 'minute field: the list "1,,2" has an empty item'],
    ['5- * * * *', 'minute field: "5-" is not a range; a range is a-b'],
    ['-5 * * * *', 'minute field: "-5" is not a range; a range is a-b'],
    ['x * * * *', 'minute field: "x" is not a number, a range (a-b) or a step (*/n or a-b/n)'],
    ['0 0 * * é', 'day of week field: only digits, *, -, / and , are accepted'],
    ['0 0 31 2 *', 'day of month field: 31 never falls in the chosen months, so the spec would never run'],
    ['0 0 31 4,6,9,11 *', 'day of month field: 31 never falls in the chosen months, so the spec would never run'],
  ];
  for (const [spec, message] of cases) assert.equal(parseCron(spec).error, message, spec);
});

test('accepted specs: leading zeros, tabs, Sunday as 7, impossible day saved by the weekday', () => {
  assert.ok(parseCron('05 09 * * 1-5').spec);
  assert.ok(parseCron(' 0\t0 * * 7 ').spec);
  assert.deepEqual(parseCron('0 0 * * 7').spec.weekdays, [0]);
  assert.ok(parseCron('0 0 31 2 1').spec);
  assert.ok(parseCron('0 0 29 2 *').spec);
  assert.equal(parseCron('0 0 1-31 * 0-7').spec.domRestricted, false);
  assert.equal(parseCron('0 0 */2 * *').spec.domRestricted, true);
});

test('next five runs, UTC, strictly after the start', () => {
  assert.deepEqual(nextRuns('*/15 * * * *', at('2026-03-01T10:07:30Z')).map(iso),
    ['2026-03-01T10:15', '2026-03-01T10:30', '2026-03-01T10:45', '2026-03-01T11:00', '2026-03-01T11:15']);
  assert.deepEqual(nextRuns('0 9 * * 1-5', at('2026-03-06T09:00:00Z')).map(iso),
    ['2026-03-09T09:00', '2026-03-10T09:00', '2026-03-11T09:00', '2026-03-12T09:00', '2026-03-13T09:00']);
  assert.deepEqual(nextRuns('30 23 31 12 *', at('2026-12-31T23:30:00Z'), 2).map(iso),
    ['2027-12-31T23:30', '2028-12-31T23:30']);
});

test('both day fields restricted: either matches (Vixie cron)', () => {
  // The 13th, or any Friday: March 2026 has Fridays on the 6th, 13th, 20th, 27th.
  assert.deepEqual(nextRuns('0 0 13 * 5', at('2026-03-01T00:00:00Z'), 4).map(iso),
    ['2026-03-06T00:00', '2026-03-13T00:00', '2026-03-20T00:00', '2026-03-27T00:00']);
  assert.deepEqual(nextRuns('0 0 31 2 1', at('2026-02-01T00:00:00Z'), 2).map(iso),
    ['2026-02-02T00:00', '2026-02-09T00:00']);
});

test('February 29 runs in leap years; from 2096 the next is 2104', () => {
  assert.deepEqual(nextRuns('0 0 29 2 *', at('2026-01-01T00:00:00Z'), 2).map(iso),
    ['2028-02-29T00:00', '2032-02-29T00:00']);
  assert.deepEqual(nextRuns('0 0 29 2 *', at('2096-03-01T00:00:00Z'), 1).map(iso), ['2104-02-29T00:00']);
});

test('a spec that does not parse has no runs', () => {
  assert.deepEqual(nextRuns('nope', 0), []);
});

test('plain words', () => {
  assert.equal(describeCron('* * * * *'), 'Every minute, every day, UTC');
  assert.equal(describeCron('*/15 * * * *'), 'Every 15 minutes, every day, UTC');
  assert.equal(describeCron('0 * * * *'), 'Every hour at minute 0, every day, UTC');
  assert.equal(describeCron('30 9 * * 1-5'), 'At 09:30, on Monday to Friday, UTC');
  assert.equal(describeCron('0 9,17 1 * *'), 'At 09:00 and 17:00, on day 1 of the month, UTC');
  assert.equal(describeCron('0 */6 * * *'), 'Every 6 hours at minute 0, every day, UTC');
  assert.equal(describeCron('0 0 1 1 *'), 'At 00:00, on day 1 of the month, in January, UTC');
  assert.equal(describeCron('0 0 13 * 5'), 'At 00:00, on day 13 of the month or on Friday, UTC');
  assert.equal(describeCron('0 24 * * *'), 'hour field: 24 is out of range 0-23');
});
