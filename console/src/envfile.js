// Reads a pasted .env block into secrets to set, the way dotenv files are commonly written:
//   NAME=value            # a comment after an unquoted value is dropped
//   export NAME=value     # "export " is allowed and ignored
//   NAME="two\nlines"     # double quotes: \n \r \t \" \\ are escapes; may span lines
//   NAME='lit$eral'       # single quotes: taken as written
//   NAME=                 # an empty value
// Names follow the API's rule for secrets (capital letters, digits and underscores, starting
// with a letter or underscore; DATABASE_URL and PG* are the platform's), so a block is checked
// here line by line before anything is sent. Pure; node --test runs it.

export const SECRET_NAME = /^[A-Z_][A-Z0-9_]*$/;

// The API's own words for a name it refuses, or null when the name is fine.
export function secretNameProblem(name) {
  if (!SECRET_NAME.test(name) || name.length > 255)
    return 'a secret name is capital letters, digits and underscores, starting with a letter or underscore';
  if (name === 'DATABASE_URL' || name.startsWith('PG'))
    return 'DATABASE_URL and names starting with PG are set by the platform';
  return null;
}

// { entries: [{name, value, line}], problems: [{line, text}] }. A name given twice keeps its
// last value (as a shell would) and says so.
export function parseEnv(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const entries = new Map();
  const problems = [];
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('export ')) line = line.slice(7).trimStart();
    const eq = line.indexOf('=');
    if (eq <= 0) {
      problems.push({ line: lineNo, text: `line ${lineNo} is not NAME=value` });
      continue;
    }
    const name = line.slice(0, eq).trim();
    let rest = line.slice(eq + 1).trimStart();
    let value;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const quote = rest[0];
      // A quoted value may continue on the following lines until its closing quote.
      let body = rest.slice(1);
      let end = closingQuote(body, quote);
      let last = i;
      while (end < 0 && last + 1 < lines.length) {
        last += 1;
        body += '\n' + lines[last];
        end = closingQuote(body, quote);
      }
      if (end < 0) {
        problems.push({ line: lineNo, text: `line ${lineNo}: the ${quote === '"' ? 'double' : 'single'} quote is never closed` });
        break;
      }
      const after = body.slice(end + 1).trim();
      if (after !== '' && !after.startsWith('#')) {
        problems.push({ line: lineNo, text: `line ${lineNo}: unexpected text after the closing quote` });
        i = last;
        continue;
      }
      value = quote === '"' ? unescapeDouble(body.slice(0, end)) : body.slice(0, end);
      i = last;
    } else {
      const hash = rest.search(/\s#/);
      value = (hash >= 0 ? rest.slice(0, hash) : rest).trim();
    }
    const problem = secretNameProblem(name);
    if (problem) {
      problems.push({ line: lineNo, text: `line ${lineNo} (${name}): ${problem}` });
      continue;
    }
    if (entries.has(name)) {
      entries.delete(name);
      problems.push({ line: lineNo, text: `line ${lineNo}: ${name} was given before; the last value is kept` });
    }
    entries.set(name, { name, value, line: lineNo });
  }
  return { entries: [...entries.values()], problems };
}

function closingQuote(body, quote) {
  for (let i = 0; i < body.length; i++) {
    if (quote === '"' && body[i] === '\\') {
      i++;
      continue;
    }
    if (body[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(text) {
  return text.replace(/\\([nrt"\\$])/g, (_, c) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
}
