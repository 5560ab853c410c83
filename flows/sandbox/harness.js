// The harness evaluated in every fresh QuickJS context before user code
// (flows/sandbox/worker.py loads it). User code may replace any built-in
// (`Object.prototype.toJSON`, `Array.prototype.push`, a setter on
// `Array.prototype[0]`...), so the harness keeps its state in closures and
// null-prototype objects and calls only intrinsics captured here, before user
// code runs. It never serialises its own report: Python reads it through
// `__weir_read`, one primitive at a time.
(function () {
  const { parse, stringify } = JSON;
  const apply = Reflect.apply;
  const slice = String.prototype.slice;
  const toText = String;
  const FunctionOf = Function;
  const SyntaxErrorOf = SyntaxError;
  const evalGlobal = globalThis.eval;
  const create = Object.create;
  const ErrorOf = Error;
  const isError = (value) => value instanceof ErrorOf;
  const promiseResolve = Promise.resolve;
  const then = Promise.prototype.then;
  const NativePromise = Promise;
  const vars = parse(globalThis.__weir_vars);
  delete globalThis.__weir_vars;
  const limits = parse(globalThis.__weir_limits);
  delete globalThis.__weir_limits;
  const logLines = limits.logLines, logLineChars = limits.logLineChars;
  const logChars = limits.logChars, outputChars = limits.outputChars;
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
    if (!isError(error)) return "Uncaught " + show(error);
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
  globalThis.__weir_run_code = (source) => {
    const body = new FunctionOf("input", "prev", "results", "secrets", source);
    const value = apply(body, undefined, [vars.input, vars.prev, vars.results, vars.secrets]);
    apply(then, apply(promiseResolve, NativePromise, [value]), [
      (result) => { settle(0, encode(result)); },
      (error) => { settle(0, ["error", "code_error", describe(error)]); },
    ]);
  };
  // Compile only. Not through the Function constructor: QuickJS builds its
  // source as text, so a body that closes the function early ("}); for(;;){}
  // (function(){") would run its tail as a statement. Here the same text
  // follows `throw 0;`: a script is compiled whole before its first statement
  // runs, and that statement ends it, so no part of the body ever runs.
  globalThis.__weir_parse_code = (source) => {
    try {
      apply(evalGlobal, undefined, [
        "throw 0; (function anonymous(input,prev,results,secrets\n) {\n" + source + "\n})",
      ]);
    } catch (error) {
      if (error instanceof SyntaxErrorOf) throw error;
    }
    settle(0, encode(null));
  };
  globalThis.__weir_run_expressions = (list) => {
    const expressions = parse(list);
    settledCount = 0;
    for (let index = 0; index < expressions.length; index++) {
      try {
        const source = "return (" + expressions[index] + "\n);";
        // `item` and `index`: a for_each item's input template (undefined elsewhere).
        // Expressions also see `run` ({id, resume_urls}); code does not, so a
        // `let run` in a code node written before it existed still compiles.
        const fn = new FunctionOf(
          "input", "prev", "results", "secrets", "item", "index", "run", source);
        settle(index, encode(apply(fn, undefined, [
          vars.input, vars.prev, vars.results, vars.secrets, vars.item, vars.index,
          vars.run])));
      } catch (error) {
        settle(index, ["error", "expression_error", describe(error)]);
      }
    }
  };
  // The report, one primitive at a time. Free text crosses as a JSON string
  // literal (stringify of a string primitive runs no user code), so a NUL or a
  // lone surrogate survives the trip into Python.
  globalThis.__weir_read = (what, index) => {
    if (what === "logCount") return logCount;
    if (what === "log") return stringify(logs[index]);
    if (what === "logsTruncated") return logsTruncated;
    if (what === "settledCount") return settledCount;
    const entry = settled[index];
    if (entry === undefined) return undefined;
    if (what === "message") return stringify(entry[2]);
    return entry[what === "kind" ? 0 : 1];
  };
})();
