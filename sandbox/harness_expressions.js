// An expressions job (see harness.js): `entry("run", list)` evaluates each
// expression of the JSON list and settles its value, or its error, at its index.
return (what, list) => {
  if (what !== "run") return read(what, list);
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
        given.input, given.prev, given.results, given.secrets, given.item, given.index,
        given.run])));
    } catch (error) {
      settle(index, ["error", "expression_error", describe(error)]);
    }
  }
};
