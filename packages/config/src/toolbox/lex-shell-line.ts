/** A word of a shell command as the shell would read it, quotes and backslashes removed. */
export interface ShellWord {
  /** The word's text: quotes and backslashes removed, expansions (`$x`, `$(...)`) kept as written. */
  text: string;
  /** Whether the shell builds part of it when it runs: a variable, a substitution, a glob, braces, `$'\x..'`. */
  dynamic: boolean;
}

/** A shell line cut into simple commands, and the code it runs inside substitutions. */
export interface LexedShellLine {
  /** Each simple command's words, redirections and their targets left out. */
  commands: ShellWord[][];
  /** The text inside `$(...)`, backticks, `<(...)` and `>(...)`: run too, read as lines of their own. */
  nested: string[];
}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/;

/**
 * Cuts a shell line into simple commands the way `sh` reads it: at `;`, `&`, `|`, newlines, `(`
 * and `)`, honouring quotes, backslashes and comments; `$(...)`, backticks and process
 * substitutions are taken out as nested lines. Not a full parser: where it cannot tell, it errs
 * towards more commands (a here-document's body is read as commands), never fewer.
 *
 * @example
 * lexShellLine("X=1 r''m -rf $(echo x)"); // commands: [[X=1, rm, -rf, $(echo x)]], nested: ['echo x']
 */
export function lexShellLine(line: string): LexedShellLine {
  const commands: ShellWord[][] = [];
  const nested: string[] = [];
  let words: ShellWord[] = [];
  let text = '';
  let started = false;
  let dynamic = false;
  let redirectTarget = false;
  let quoted = false;
  // A glob the shell expands into file names (`*`, `?`, `[...]`) or braces (`{a,b}`, `{1..3}`)
  // in shells that expand them make the word whatever the folder holds: an unquoted `[` or `{`
  // seen in the word so far, and for braces a `,` or `..` after it.
  let bracket = false;
  let brace: 'open' | 'list' | undefined;
  // A `<<` or `<<-` waiting for its delimiter word; then the here-documents whose bodies start
  // after the next newline.
  let hereNext: { stripTabs: boolean } | undefined;
  const heres: Array<{ delimiter: string; quoted: boolean; stripTabs: boolean }> = [];

  const endWord = () => {
    if (started) {
      if (redirectTarget) {
        if (hereNext) heres.push({ delimiter: text, quoted, ...hereNext });
        hereNext = undefined;
        redirectTarget = false;
      } else words.push({ text, dynamic });
    }
    text = '';
    started = false;
    dynamic = false;
    quoted = false;
    bracket = false;
    brace = undefined;
  };
  // The bodies of the pending here-documents, from `from`; returns where the line goes on. A body
  // is text, not commands, but an unquoted delimiter lets its `$(...)` and backticks run.
  const hereBodies = (from: number): number => {
    let at = from;
    for (const here of heres.splice(0)) {
      while (at < line.length) {
        const end = line.indexOf('\n', at) < 0 ? line.length : line.indexOf('\n', at);
        const row = line.slice(at, end);
        at = end + 1;
        if ((here.stripTabs ? row.replace(/^\t+/, '') : row) === here.delimiter) break;
        if (!here.quoted) nested.push(...substitutions(row));
      }
    }
    return at;
  };
  const endCommand = () => {
    endWord();
    redirectTarget = false;
    if (words.length > 0) commands.push(words);
    words = [];
  };
  // `$...` at `i` (the `$`); returns the index of its last character.
  const dollar = (i: number, inDoubleQuotes: boolean): number => {
    const next = line[i + 1];
    if (next === '(' && line[i + 2] === '(') {
      const end = closing(line, i + 3);
      const inner = line.slice(i + 3, end);
      if (/\$\(|`/.test(inner)) nested.push(inner);
      text += line.slice(i, end + 2);
      dynamic = true;
      return Math.min(end + 1, line.length - 1);
    }
    if (next === '(') {
      const end = closing(line, i + 2);
      nested.push(line.slice(i + 2, end));
      text += line.slice(i, end + 1);
      dynamic = true;
      return end;
    }
    if (next === '{') {
      const end = closing(line, i + 2, '{', '}');
      const inner = line.slice(i + 2, end);
      if (/\$\(|`/.test(inner)) nested.push(inner);
      text += line.slice(i, end + 1);
      dynamic = true;
      return end;
    }
    if (next !== undefined && NAME_START.test(next)) {
      let end = i + 1;
      while (end + 1 < line.length && NAME_CHAR.test(line[end + 1])) end++;
      text += line.slice(i, end + 1);
      dynamic = true;
      return end;
    }
    if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
      text += line.slice(i, i + 2);
      dynamic = true;
      return i + 1;
    }
    if (!inDoubleQuotes && next === "'") {
      // `$'...'`: backslash escapes (`\x72` is `r`) make a word no text shows.
      let end = i + 2;
      let raw = '';
      while (end < line.length && line[end] !== "'") {
        if (line[end] === '\\' && end + 1 < line.length) raw += line[end++];
        raw += line[end++];
      }
      if (raw.includes('\\')) dynamic = true;
      text += raw;
      return end;
    }
    text += '$';
    return i;
  };
  const backtick = (i: number): number => {
    let end = i + 1;
    let inner = '';
    while (end < line.length && line[end] !== '`') {
      if (line[end] === '\\' && /[`\\$]/.test(line[end + 1] ?? '')) end++;
      inner += line[end++];
    }
    nested.push(inner);
    text += `\`${inner}\``;
    dynamic = true;
    return end;
  };

  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '#' && !started) {
      while (i + 1 < line.length && line[i + 1] !== '\n') i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (/[;&|\n\r()]/.test(c)) {
      endCommand();
      if (c === '\n' && heres.length > 0) i = hereBodies(i + 1) - 1;
    } else if (c === '<' || c === '>') {
      // `2>` names a file descriptor, not a word.
      if (started && !dynamic && /^\d+$/.test(text) && !/['"\\]/.test(line[i - 1])) {
        started = false;
        text = '';
      }
      endWord();
      if (line[i + 1] === '(') {
        const end = closing(line, i + 2);
        nested.push(line.slice(i + 2, end));
        words.push({ text: line.slice(i, end + 1), dynamic: true });
        i = end;
        continue;
      }
      const start = i;
      while (/[<>&|-]/.test(line[i + 1] ?? '')) i++;
      const operator = line.slice(start, i + 1);
      if (operator === '<<' || operator === '<<-') hereNext = { stripTabs: operator === '<<-' };
      redirectTarget = true;
    } else if (c === "'") {
      started = true;
      quoted = true;
      while (++i < line.length && line[i] !== "'") text += line[i];
    } else if (c === '"') {
      started = true;
      quoted = true;
      while (++i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && /[$`"\\\n]/.test(line[i + 1] ?? '')) {
          if (line[i + 1] !== '\n') text += line[i + 1];
          i++;
        } else if (line[i] === '$') i = dollar(i, true);
        else if (line[i] === '`') i = backtick(i);
        else text += line[i];
      }
    } else if (c === '\\') {
      if (line[i + 1] === '\n') i++;
      else if (i + 1 < line.length) {
        text += line[++i];
        started = true;
        quoted = true;
      }
    } else if (c === '$') {
      started = true;
      i = dollar(i, false);
    } else if (c === '`') {
      started = true;
      i = backtick(i);
    } else {
      if (c === '*' || c === '?') dynamic = true;
      else if (c === '[') bracket = true;
      else if (c === ']' && bracket) dynamic = true;
      else if (c === '{') brace = 'open';
      else if (brace === 'open' && (c === ',' || (c === '.' && line[i + 1] === '.'))) brace = 'list';
      else if (c === '}' && brace === 'list') dynamic = true;
      text += c;
      started = true;
    }
  }
  endCommand();
  return { commands, nested };
}

// The code a here-document's line runs: its `$(...)` and backticks (inside `${...}` and `$((...))` too).
function substitutions(row: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\') i++;
    else if (row[i] === '$' && row[i + 1] === '(' && row[i + 2] !== '(') {
      const end = closing(row, i + 2);
      out.push(row.slice(i + 2, end));
      i = end;
    } else if (row[i] === '`') {
      let end = i + 1;
      while (end < row.length && row[end] !== '`') end += row[end] === '\\' ? 2 : 1;
      out.push(row.slice(i + 1, end));
      i = end;
    }
  }
  return out;
}

// The index of the `)` (or, for `${…}`, the `}`) closing a bracket whose content starts at
// `from`, past quotes and nested brackets of its kind; the line's length when it is never closed.
function closing(line: string, from: number, open = '(', close = ')'): number {
  let depth = 1;
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') i++;
    else if (c === "'") i = skipTo(line, i + 1, "'");
    else if (c === '"') i = skipDoubleQuoted(line, i + 1);
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return line.length;
}

function skipTo(line: string, from: number, end: string): number {
  const at = line.indexOf(end, from);
  return at < 0 ? line.length : at;
}

function skipDoubleQuoted(line: string, from: number): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '"') return i;
  }
  return line.length;
}
