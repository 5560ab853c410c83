// A pasted curl command read as an HTTP request node's settings (docs/builder.md,
// "Import cURL"). Words are split as a POSIX shell does ('…', "…", $'…', \ and
// line continuations); options are read as curl does. Anything curl would read
// from elsewhere (a file, the terminal) or that the node cannot do is an error
// naming it, never silently dropped.

const IGNORED_FLAGS = new Set([
  "-s", "--silent", "-S", "--show-error", "-L", "--location", "-k", "--insecure", "-v", "--verbose",
  "-i", "--include", "--compressed", "-f", "--fail", "--fail-with-body", "-g", "--globoff", "-N",
  "--no-buffer", "--http1.1", "--http2", "-#", "--progress-bar", "--no-progress-meter", "-0", "--http1.0",
]);
const IGNORED_WITH_VALUE = new Set([
  "-o", "--output", "-m", "--max-time", "--connect-timeout", "--retry", "-w", "--write-out",
]);
const HEADER_OPTIONS = { "-A": "User-Agent", "--user-agent": "User-Agent", "-e": "Referer", "--referer": "Referer", "-b": "Cookie", "--cookie": "Cookie" };
const DATA_OPTIONS = new Set(["-d", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode"]);
const SHORT_WITH_VALUE = new Set(["-X", "-H", "-d", "-u", "-F", "-A", "-e", "-b", "-o", "-m", "-w"]);
export const CREDENTIAL_NOTE = "Credentials belong in a credential: create one on the Credentials page and choose it under Credential.";

export class CurlError extends Error {}

// The shell words of `text`.
export function shellWords(text) {
  const words = [];
  let word = null;
  let i = 0;
  const add = (chars) => { word = (word ?? "") + chars; };
  while (i < text.length) {
    const char = text[i];
    if (char === "\\") {
      const next = text[i + 1];
      if (next === "\n") i += 2; // a line continuation
      else if (next === "\r" && text[i + 2] === "\n") i += 3;
      else { if (next !== undefined) add(next); i += 2; }
    } else if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new CurlError("A single quote (') is never closed.");
      add(text.slice(i + 1, end));
      i = end + 1;
    } else if (char === "$" && text[i + 1] === "'") {
      i = ansiQuoted(text, i + 2, add);
    } else if (char === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && '"\\$`\n'.includes(text[i + 1])) {
          if (text[i + 1] !== "\n") add(text[i + 1]);
          i += 2;
        } else { add(text[i]); i += 1; }
      }
      if (i >= text.length) throw new CurlError('A double quote (") is never closed.');
      add("");
      i += 1;
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
      i += 1;
    } else if ("|;&<>".includes(char)) {
      throw new CurlError(`Only one curl command can be imported: "${char}" starts another.`);
    } else { add(char); i += 1; }
  }
  if (word !== null) words.push(word);
  return words;
}

function ansiQuoted(text, start, add) {
  const escapes = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
  let i = start;
  add("");
  while (i < text.length && text[i] !== "'") {
    if (text[i] !== "\\") { add(text[i]); i += 1; continue; }
    const code = text[i + 1];
    const hex = { x: 2, u: 4, U: 8 }[code];
    if (hex) {
      const digits = text.slice(i + 2).match(new RegExp(`^[0-9a-fA-F]{1,${hex}}`))?.[0] ?? "";
      add(digits ? String.fromCodePoint(parseInt(digits, 16)) : code);
      i += 2 + digits.length;
    } else { add(escapes[code] ?? `\\${code}`); i += 2; }
  }
  if (i >= text.length) throw new CurlError("A $'…' quote is never closed.");
  return i + 1;
}

// `{method, url, headers, body, bodyType, query, notes}` for the node, from a curl command.
export function parseCurl(text) {
  const words = shellWords(text.trim());
  if (words[0] !== "curl") throw new CurlError("Paste a command that starts with curl.");
  const headers = {};
  const data = [];
  const form = {};
  const notes = [];
  let method = null;
  let url = null;
  let json = false;
  let get = false;
  for (let i = 1; i < words.length; i += 1) {
    let option = words[i];
    let value;
    if (/^-[A-Za-z]./.test(option) && SHORT_WITH_VALUE.has(option.slice(0, 2))) {
      value = option.slice(2); // -XPOST, -HAccept:x
      option = option.slice(0, 2);
    } else if (/^-[A-Za-z#]{2,}$/.test(option) && [...option.slice(1)].every((flag) => IGNORED_FLAGS.has(`-${flag}`) || flag === "G" || flag === "I")) {
      for (const flag of option.slice(1)) {
        if (flag === "G") get = true;
        if (flag === "I") method = "HEAD";
      }
      continue;
    }
    const takeValue = () => {
      if (value !== undefined) return value;
      i += 1;
      if (i >= words.length) throw new CurlError(`${option} needs a value after it.`);
      return words[i];
    };
    if (!option.startsWith("-") || option === "--url") {
      const target = option === "--url" ? takeValue() : option;
      if (url !== null) throw new CurlError("Only one URL can be imported; the command has two.");
      url = target;
    } else if (option === "-X" || option === "--request") {
      method = takeValue().toUpperCase();
    } else if (option === "-H" || option === "--header") {
      const line = takeValue();
      const colon = line.indexOf(":");
      if (line.startsWith("@")) throw new CurlError(`${option} ${line} reads headers from a file; paste them instead.`);
      if (colon < 1) throw new CurlError(`Cannot read the header "${line}": write it as "Name: value".`);
      const name = line.slice(0, colon).trim();
      if (name.toLowerCase() === "authorization") notes.push(`The Authorization header was left out. ${CREDENTIAL_NOTE}`);
      else headers[name] = line.slice(colon + 1).trim();
    } else if (DATA_OPTIONS.has(option)) {
      data.push(dataValue(option, takeValue()));
    } else if (option === "--json") {
      data.push(dataValue(option, takeValue()));
      json = true;
    } else if (option === "-F" || option === "--form") {
      const field = takeValue();
      const equals = field.indexOf("=");
      if (equals < 1) throw new CurlError(`Cannot read the form field "${field}": write it as name=value.`);
      if ("@<".includes(field[equals + 1])) {
        throw new CurlError(`-F ${field} sends a file from your disk; the node sends run files: put {{ the file }} in that field of the body after importing without it.`);
      }
      form[field.slice(0, equals)] = field.slice(equals + 1);
    } else if (option === "-u" || option === "--user") {
      takeValue();
      notes.push(`The user and password (-u) were left out. ${CREDENTIAL_NOTE}`);
    } else if (option === "-G" || option === "--get") {
      get = true;
    } else if (option === "-I" || option === "--head") {
      method = "HEAD";
    } else if (HEADER_OPTIONS[option]) {
      headers[HEADER_OPTIONS[option]] = takeValue();
    } else if (IGNORED_WITH_VALUE.has(option)) {
      takeValue();
    } else if (!IGNORED_FLAGS.has(option)) {
      throw new CurlError(`The option ${option} cannot be imported.`);
    }
  }
  if (url === null) throw new CurlError("The command has no URL.");
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`; // as curl does
  if (!/^https?:\/\//i.test(url)) throw new CurlError(`Only http:// and https:// URLs can be called: ${url}`);
  if (Object.keys(form).length && data.length) throw new CurlError("-F and -d cannot be used together (curl refuses it too).");
  const result = { method, url, headers, body: null, bodyType: "auto", query: [], notes };
  if (get) {
    result.query = data.flatMap(queryPairs);
    result.method ??= "GET";
  } else if (data.length) {
    const text = data.join("&");
    if (json) {
      setDefault(headers, "Content-Type", "application/json");
      setDefault(headers, "Accept", "application/json");
    } else setDefault(headers, "Content-Type", "application/x-www-form-urlencoded");
    result.body = jsonOrText(text, headers);
    result.method ??= "POST";
  } else if (Object.keys(form).length) {
    result.body = form;
    result.bodyType = "multipart";
    result.method ??= "POST";
  }
  result.method ??= "GET";
  return result;
}

function dataValue(option, value) {
  if (option === "--data-urlencode") {
    const equals = value.indexOf("=");
    if (value.startsWith("@") || value.slice(equals + 1).startsWith("@")) throw new CurlError(`${option} ${value} reads a file; paste its content instead.`);
    return equals < 0 ? encodeURIComponent(value) : `${value.slice(0, equals)}=${encodeURIComponent(value.slice(equals + 1))}`;
  }
  if (option !== "--data-raw" && value.startsWith("@")) {
    throw new CurlError(`${option} ${value} reads the body from a file; paste its content instead.`);
  }
  return value;
}

function queryPairs(text) {
  return text.split("&").filter(Boolean).map((pair) => {
    const [name, ...rest] = pair.split("=");
    const decode = (part) => decodeURIComponent(part.replace(/\+/g, " "));
    return { name: decode(name), value: decode(rest.join("=")) };
  });
}

function setDefault(headers, name, value) {
  if (!Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase())) headers[name] = value;
}

// A JSON body (Content-Type JSON, or text that is a JSON object or list) as its
// value, for the node's JSON body field; anything else stays text.
function jsonOrText(text, headers) {
  const type = Object.entries(headers).find(([key]) => key.toLowerCase() === "content-type")?.[1] ?? "";
  const looksJson = /json/i.test(type) || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
