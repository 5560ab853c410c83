// A code job (see harness.js): the user's body runs as a function of input,
// prev, results and secrets; its value, or what its promise settles to, is
// settled entry 0. `entry("run", source)`, then `entry(what, index)` reads.
const promiseResolve = Promise.resolve;
const then = Promise.prototype.then;
const NativePromise = Promise;
return (what, source) => {
  if (what !== "run") return read(what, source);
  const body = new FunctionOf("input", "prev", "results", "secrets", source);
  const value = apply(body, undefined, [given.input, given.prev, given.results, given.secrets]);
  apply(then, apply(promiseResolve, NativePromise, [value]), [
    (result) => { settle(0, encode(result)); },
    (error) => { settle(0, ["error", "code_error", describe(error)]); },
  ]);
};
