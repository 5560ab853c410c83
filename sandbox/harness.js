// The harness common to the "code" and "expressions" jobs, evaluated in every
// fresh QuickJS context before user code (sandbox/worker.py builds the
// script: `(function (variables, logLines, logLineChars, logChars, outputChars) {`,
// this file, the mode's own file, `})`). The script's value is that function;
// the worker calls it once, and the entry point it returns (`run` the user's
// code, then read the report) is never put on the global object, so user code
// cannot reach it. Each job evaluates only what its mode needs: compiling
// JavaScript is most of a job's cost.
//
// User code may replace any built-in (`Object.prototype.toJSON`,
// `Array.prototype.push`, a setter on `Array.prototype[0]`...), so the harness
// keeps its state in closures and null-prototype objects and calls only
// intrinsics captured here, before user code runs. It never serialises its own
// report: Python reads it through the entry point, one primitive at a time.
const { parse, stringify } = JSON;
const apply = Reflect.apply;
const slice = String.prototype.slice;
const toText = String;
const FunctionOf = Function;
const create = Object.create;
const ErrorOf = Error;
const given = parse(variables);
// Workspace variables (docs/engine.md, "Variables"): a frozen global, so a
// missing name reads as undefined, as n8n's $vars does.
globalThis.vars = Object.freeze(Object.assign(create(null), given.vars));
const logs = create(null);
let logCount = 0;
let logBytes = 0;
let logsTruncated = false;
const show = (value) => {
  if (typeof value === "string") return value;
  let text;
  try {
    text = stringify(value);
  } catch (error) {
    text = undefined;
  }
  if (typeof text === "string") return text;
  try {
    text = toText(value);
  } catch (error) {
    return "[unprintable]";
  }
  return typeof text === "string" ? text : "[unprintable]";
};
const log = (...args) => {
  if (logsTruncated) return;
  let line = "";
  for (let i = 0; i < args.length; i++) {
    line = i === 0 ? show(args[i]) : line + " " + show(args[i]);
    if (line.length > logLineChars) break;
  }
  if (line.length > logLineChars) {
    line = apply(slice, line, [0, logLineChars]) + "… [line truncated]";
  }
  if (logCount >= logLines || logBytes + line.length > logChars) {
    logsTruncated = true;
    return;
  }
  logs[logCount] = line;
  logCount += 1;
  logBytes += line.length;
};
globalThis.console = Object.freeze({
  log, info: log, warn: log, error: log, debug: log,
});
const encode = (value) => {
  let text;
  try {
    text = stringify(value);
  } catch (error) {
    return ["error", "invalid_output", "The value is not JSON: " + show(error)];
  }
  if (text === undefined) text = "null";
  if (typeof text !== "string") {
    return ["error", "invalid_output", "The value is not JSON."];
  }
  if (text.length > outputChars) {
    return ["error", "output_too_large", "The output is " + text.length +
      " characters of JSON; the limit is " + outputChars + "."];
  }
  return ["json", text, ""];
};
const describe = (error) => {
  if (!(error instanceof ErrorOf)) return "Uncaught " + show(error);
  let text;
  try {
    text = toText(error);
  } catch (ignored) {
    text = "Error";
  }
  if (typeof text !== "string") text = "Error";
  try {
    const stack = error.stack;
    if (typeof stack === "string" && stack) text = text + "\n" + stack;
  } catch (ignored) {}
  return text;
};
const settled = create(null);
let settledCount = -1;  // -1: a code job whose promise has not settled
const settle = (index, entry) => {
  settled[index] = entry;
  if (index >= settledCount) settledCount = index + 1;
};
// The report, one primitive at a time. Free text crosses as a JSON string
// literal (stringify of a string primitive runs no user code), so a NUL or a
// lone surrogate survives the trip into Python.
const read = (what, index) => {
  if (what === "logCount") return logCount;
  if (what === "log") return stringify(logs[index]);
  if (what === "logsTruncated") return logsTruncated;
  if (what === "settledCount") return settledCount;
  const entry = settled[index];
  if (entry === undefined) return undefined;
  if (what === "message") return stringify(entry[2]);
  return entry[what === "kind" ? 0 : 1];
};
