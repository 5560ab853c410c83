// The date helpers (docs/sandbox.md, "Dates"): a frozen global `dates` built on
// the vendored dayjs with its utc and customParseFormat plugins, and time zones
// from the vendored POSIX rules (QuickJS has no Intl). The worker puts the
// library's text (`dayjsOf`, `utcPlugin`, `parsePlugin`, `tzRuleText`) before
// this file, and only for jobs whose source mentions `dates`.
dayjsOf.extend(utcPlugin);
dayjsOf.extend(parsePlugin);
const DateOf = Date;
// The helpers' own errors carry no stack: its frames would be the harness's,
// and the worker would report their lines as lines of the user's code.
const fail = (message) => {
  const error = new RangeError(message);
  error.stack = "";
  throw error;
};
let tzRules;  // zone -> its POSIX rule text, built on first use
const parsedRules = create(null);
const zoneRule = (zone) => {
  if (zone === undefined || zone === null || zone === "UTC" || zone === "Etc/UTC") {
    return { std: 0 };
  }
  if (tzRules === undefined) {
    tzRules = create(null);
    const table = parse(tzRuleText);
    for (const rule of Object.keys(table)) {
      for (const name of table[rule].split(" ")) tzRules[name] = rule;
    }
  }
  const text = tzRules[zone];
  if (typeof text !== "string") fail("Unknown time zone: " + zone);
  if (parsedRules[zone] === undefined) parsedRules[zone] = posixRule(text);
  return parsedRules[zone];
};
// "CET-1CEST,M3.5.0,M10.5.0/3" -> offsets east of UTC in minutes and the rules.
const seconds = (text) => {
  const sign = text[0] === "-" ? -1 : 1;
  const [h, m = 0, s = 0] = text.replace(/^[+-]/, "").split(":").map(Number);
  return sign * (h * 3600 + m * 60 + s);
};
const posixRule = (text) => {
  const match = /^(<[^>]*>|[A-Za-z]+)([+-]?[\d:]+)(?:(<[^>]*>|[A-Za-z]+)([+-]?[\d:]+)?,M(\d+)\.(\d)\.(\d)(?:\/([+-]?[\d:]+))?,M(\d+)\.(\d)\.(\d)(?:\/([+-]?[\d:]+))?)?$/.exec(text);
  if (match === null) fail("Unreadable time zone rule: " + text);
  const std = -seconds(match[2]) / 60;
  if (match[3] === undefined) return { std };
  const dst = match[4] === undefined ? std + 60 : -seconds(match[4]) / 60;
  const when = (month, week, day, time) => ({
    month: +month, week: +week, day: +day,
    time: time === undefined ? 7200 : seconds(time),
  });
  return {
    std, dst,
    start: when(match[5], match[6], match[7], match[8]),
    end: when(match[9], match[10], match[11], match[12]),
  };
};
// The UTC milliseconds at which a rule's switch happens in `year`, the wall
// clock then running at `offset` minutes.
const switchAt = (year, when, offset) => {
  const first = new DateOf(DateOf.UTC(year, when.month - 1, 1)).getUTCDay();
  let date = 1 + ((when.day - first + 7) % 7) + (when.week - 1) * 7;
  const days = new DateOf(DateOf.UTC(year, when.month, 0)).getUTCDate();
  while (date > days) date -= 7;  // week 5: the last such day
  return DateOf.UTC(year, when.month - 1, date) + when.time * 1000 - offset * 60000;
};
const offsetAt = (zone, ms) => {
  const rule = zoneRule(zone);
  if (rule.dst === undefined) return rule.std;
  const year = new DateOf(ms + rule.std * 60000).getUTCFullYear();
  const start = switchAt(year, rule.start, rule.std);
  const end = switchAt(year, rule.end, rule.dst);
  const summer = start < end ? ms >= start && ms < end : !(ms >= end && ms < start);
  return summer ? rule.dst : rule.std;
};
// A wall-clock time read as UTC -> the instant it names in `zone`.
const fromWall = (wallMs, zone) => {
  const guess = wallMs - offsetAt(zone, wallMs) * 60000;
  return wallMs - offsetAt(zone, guess) * 60000;
};
const instant = (value) => {
  const d = dayjsOf.utc(value);
  if (!d.isValid()) fail("Not a date: " + show(value));
  return d;
};
const inZone = (value, zone) => {
  const d = instant(value);
  return d.utcOffset(offsetAt(zone, d.valueOf()));
};
const iso = (d) => d.toISOString();
const wallOf = (d) => DateOf.UTC(d.year(), d.month(), d.date(), d.hour(), d.minute(), d.second(), d.millisecond());
globalThis.dates = Object.freeze({
  now: () => iso(dayjsOf.utc()),
  parse: (text, format, zone) => {
    const hasOffset = typeof text === "string" && /(Z|[+-]\d\d:?\d\d)$/i.test(text.trim());
    if (format === undefined && (hasOffset || zone === undefined || typeof text !== "string")) {
      return iso(instant(text));
    }
    const wall = format === undefined ? dayjsOf.utc(text) : dayjsOf.utc(text, format, true);
    if (!wall.isValid()) fail("Not a date: " + show(text) + (format ? " (format " + format + ")" : ""));
    return new DateOf(fromWall(wall.valueOf(), zone)).toISOString();
  },
  format: (value, pattern, zone) => {
    const d = inZone(value, zone);
    return pattern === undefined ? d.format() : d.format(pattern);
  },
  add: (value, amount, unit, zone) => {
    if (zone === undefined) return iso(instant(value).add(amount, unit));
    const moved = inZone(value, zone).add(amount, unit);
    return new DateOf(fromWall(wallOf(moved), zone)).toISOString();
  },
  difference: (later, earlier, unit, fractional) =>
    instant(later).diff(instant(earlier), unit, fractional === true),
  startOf: (value, unit, zone) => {
    if (zone === undefined) return iso(instant(value).startOf(unit));
    return new DateOf(fromWall(wallOf(inZone(value, zone).startOf(unit)), zone)).toISOString();
  },
  offset: (zone, value) => offsetAt(zone, value === undefined ? DateOf.now() : instant(value).valueOf()),
  dayjs: dayjsOf,
});
