// Cron specs as the scheduler reads them (plugins/scheduler/README.md, "Cron"): five fields in
// UTC, the same refusals in the same words, the same day rule, so that what the Schedules page
// says before saving is what the API will say. Also the spec in plain words and its next runs.
// Pure: no DOM; node --test runs it (console/test/cron.test.mjs).

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
];
const MONTH = 3;
const WEEKDAY = 4;
// The longest each month can be (29 for February: leap years come).
const LONGEST = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

class FieldError extends Error {}
const refuse = (field, why) => {
  throw new FieldError(`${field.name} field: ${why}`);
};
const isDigits = (s) => /^[0-9]+$/.test(s);

// Letters, ? and # get a message saying what is not accepted: other crons take them.
function refuseText(field, index, item) {
  if (item.includes('?')) refuse(field, '? is not accepted; use *');
  if (item.includes('#')) refuse(field, '# is not accepted');
  if (/[A-Za-z]/.test(item)) {
    if (index === MONTH) refuse(field, 'names such as JAN are not accepted; use the numbers 1-12');
    if (index === WEEKDAY) refuse(field, 'names such as MON are not accepted; use the numbers 0-7 (Sunday is 0 or 7)');
    if (item === 'l' || item.includes('L') || item.includes('W')) refuse(field, 'L and W are not accepted');
  }
  refuse(field, `"${item}" is not a number, a range (a-b) or a step (*/n or a-b/n)`);
}

function significant(text) {
  const s = text.replace(/^0+/, '');
  return s === '' ? '0' : s;
}

function number(field, index, text, item) {
  if (!isDigits(text)) refuseText(field, index, item);
  const s = significant(text);
  if (s.length > 6) refuse(field, `${text} is out of range ${field.min}-${field.max}`);
  const value = Number(s);
  if (value < field.min || value > field.max) refuse(field, `${value} is out of range ${field.min}-${field.max}`);
  return value;
}

function step(field, index, text, item) {
  if (text === '') refuse(field, `"${item}" has no step after the /`);
  if (!isDigits(text)) refuseText(field, index, item);
  const s = significant(text);
  const value = Number(s);
  if (s.length > 6 || value < 1 || value > field.max) refuse(field, `a step is 1 to ${field.max}, not ${text}`);
  return value;
}

// One field as the set of its values (day of week: 7 folded onto 0).
function parseField(index, text) {
  const field = FIELDS[index];
  const values = new Set();
  for (const item of text.split(',')) {
    if (item === '') refuse(field, `the list "${text}" has an empty item`);
    let low = field.min;
    let high = index === WEEKDAY ? 6 : field.max;
    let every = 1;
    let range = item;
    const slash = item.indexOf('/');
    if (slash >= 0) {
      range = item.slice(0, slash);
      every = step(field, index, item.slice(slash + 1), item);
    }
    if (range !== '*') {
      const dash = range.indexOf('-');
      if (dash < 0) {
        if (slash >= 0 && isDigits(range)) {
          refuse(field, `a step goes after * or a range, as */${every} or ${range}-${field.max}/${every}, not after a single number`);
        }
        low = high = number(field, index, range, item);
      } else {
        const from = range.slice(0, dash);
        const to = range.slice(dash + 1);
        if (from === '' || to === '') {
          if (isDigits(from) || isDigits(to) || from === '') refuse(field, `"${item}" is not a range; a range is a-b`);
          refuseText(field, index, item);
        }
        low = number(field, index, from, item);
        high = number(field, index, to, item);
        if (low > high) {
          refuse(field, `the range ${range} runs backwards; ranges do not wrap around, so write ${high}-${low} or a list of two ranges`);
        }
      }
    }
    for (let v = low; v <= high; v += every) values.add(index === WEEKDAY ? v % 7 : v);
  }
  return values;
}

const sorted = (set) => [...set].sort((a, b) => a - b);
const full = (set, low, high) => {
  for (let v = low; v <= high; v++) if (!set.has(v)) return false;
  return true;
};

// { spec } or { error }: the spec's fields as sorted value lists and whether each day field
// restricts, or the scheduler's refusal in its words.
export function parseCron(text) {
  const fields = String(text).split(/[ \t]+/).filter((f) => f !== '');
  if (fields.length && fields[0][0] === '@') {
    return { error: `shorthands such as ${fields[0]} are not accepted; write the five fields (minute hour day-of-month month day-of-week), for example 0 0 * * * for every day at midnight UTC` };
  }
  if (fields.length !== 5) {
    return { error: `a cron spec has five fields separated by spaces: minute hour day-of-month month day-of-week; this one has ${fields.length}` };
  }
  try {
    fields.forEach((f, i) => {
      if (/[^\x20-\x7e]/.test(f)) refuse(FIELDS[i], 'only digits, *, -, / and , are accepted');
    });
    const sets = fields.map((f, i) => parseField(i, f));
    const [minutes, hours, days, months, weekdays] = sets;
    const spec = {
      minutes: sorted(minutes),
      hours: sorted(hours),
      days: sorted(days),
      months: sorted(months),
      weekdays: sorted(weekdays),
      domRestricted: !full(days, 1, 31),
      dowRestricted: !full(weekdays, 0, 6),
    };
    // Only the day of month restricts the days: some chosen month must hold a chosen day.
    if (spec.domRestricted && !spec.dowRestricted) {
      const possible = spec.months.some((m) => spec.days.some((d) => d <= LONGEST[m]));
      if (!possible) refuse(FIELDS[2], `${fields[2]} never falls in the chosen months, so the spec would never run`);
    }
    return { spec };
  } catch (e) {
    if (e instanceof FieldError) return { error: e.message };
    throw e;
  }
}

// Whether a UTC day runs: with both day fields restricted either may match (Vixie cron).
function dayMatches(spec, date) {
  if (!spec.months.includes(date.getUTCMonth() + 1)) return false;
  const dom = spec.days.includes(date.getUTCDate());
  const dow = spec.weekdays.includes(date.getUTCDay());
  return spec.domRestricted && spec.dowRestricted ? dom || dow : dom && dow;
}

// The next `count` runs strictly after `fromSeconds` (Unix seconds), as Unix seconds. Each is
// found a day at a time, and gives up past 400 years, as the scheduler does.
export function nextRuns(specOrText, fromSeconds, count = 5) {
  const spec = typeof specOrText === 'string' ? parseCron(specOrText).spec : specOrText;
  if (!spec) return [];
  const runs = [];
  let start = (Math.floor(fromSeconds / 60) + 1) * 60;
  const limit = start + 400 * 366 * 86400;
  while (runs.length < count && start <= limit) {
    const dayStart = Math.floor(start / 86400) * 86400;
    const date = new Date(dayStart * 1000);
    let found = null;
    if (dayMatches(spec, date)) {
      const minuteOfDay = (start - dayStart) / 60;
      for (const h of spec.hours) {
        if (h < Math.floor(minuteOfDay / 60)) continue;
        const m = spec.minutes.find((x) => h * 60 + x >= minuteOfDay);
        if (m !== undefined) {
          found = dayStart + h * 3600 + m * 60;
          break;
        }
      }
    }
    if (found !== null) {
      runs.push(found);
      start = found + 60;
    } else {
      start = dayStart + 86400;
    }
  }
  return runs;
}

const MONTHS = ['', 'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
  'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n) => String(n).padStart(2, '0');

// "1, 2 and 5"
function list(words) {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

// Runs of consecutive values as "a to b" (three or more), else single values.
function runsOf(values, name) {
  const out = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j] + 1) j++;
    if (j - i >= 2) out.push(`${name(values[i])} to ${name(values[j])}`);
    else for (let k = i; k <= j; k++) out.push(name(values[k]));
    i = j + 1;
  }
  return list(out);
}

// An even step over the whole field: its size, else 0.
function stepOf(values, min, max) {
  if (values.length < 2 || values[0] !== min) return 0;
  const d = values[1] - values[0];
  for (let i = 1; i < values.length; i++) if (values[i] - values[i - 1] !== d) return 0;
  return values[values.length - 1] + d > max ? d : 0;
}

function timePart(spec) {
  const { minutes, hours } = spec;
  const allMinutes = minutes.length === 60;
  const allHours = hours.length === 24;
  if (allMinutes && allHours) return 'every minute';
  const minuteStep = stepOf(minutes, 0, 59);
  const hourWords = allHours ? '' : ` during hour${hours.length > 1 ? 's' : ''} ${runsOf(hours, pad)}`;
  if (allMinutes) return `every minute${hourWords}`;
  if (minuteStep) return `every ${minuteStep} minutes${hourWords}`;
  if (allHours) {
    return `every hour at minute ${runsOf(minutes, String)}`;
  }
  const hourStep = stepOf(hours, 0, 23);
  if (hourStep && minutes.length === 1) return `every ${hourStep} hours at minute ${minutes[0]}`;
  if (hours.length * minutes.length <= 6) {
    const times = [];
    for (const h of hours) for (const m of minutes) times.push(`${pad(h)}:${pad(m)}`);
    return `at ${list(times)}`;
  }
  return `at minute ${runsOf(minutes, String)} of hours ${runsOf(hours, pad)}`;
}

function dayPart(spec) {
  const dom = spec.domRestricted ? `on day ${runsOf(spec.days, String)} of the month` : '';
  const dow = spec.dowRestricted ? `on ${runsOf(spec.weekdays, (d) => WEEKDAYS[d])}` : '';
  if (dom && dow) return `${dom} or ${dow}`;
  return dom || dow || 'every day';
}

// The spec in plain words, UTC said: "every 15 minutes, every day, UTC".
export function describeCron(text) {
  const { spec, error } = parseCron(text);
  if (!spec) return error;
  const months = spec.months.length === 12 ? '' : `, in ${runsOf(spec.months, (m) => MONTHS[m])}`;
  return `${timePart(spec)}, ${dayPart(spec)}${months}, UTC`.replace(/^./, (c) => c.toUpperCase());
}
