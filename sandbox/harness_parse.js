// A parse job: compile a code node's body at save, never run it. The script's
// value is a function of the source; it throws the SyntaxError, if any. Nothing
// of the user's runs, so nothing needs capturing first.
//
// Not through the Function constructor: QuickJS builds its source as text, so
// a body that closes the function early ("}); for(;;){} (function(){") would
// run its tail as a statement. Here the same text follows `throw 0;`: a script
// is compiled whole before its first statement runs, and that statement ends
// it, so no part of the body ever runs.
(function (source) {
  try {
    (0, eval)(
      "throw 0; (function anonymous(input,prev,results,secrets\n) {\n" + source + "\n})");
  } catch (error) {
    if (error instanceof SyntaxError) throw error;
  }
})
