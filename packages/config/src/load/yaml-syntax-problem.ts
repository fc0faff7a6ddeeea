import type { LineCounter } from 'yaml';
import type { SourceRange } from '../diagnostic.js';
import { excerpt } from '../rules/excerpt.js';
import { offsetRange } from './node-range.js';

/** A YAML parse error as the `yaml` library reports it. */
export interface YamlError {
  code: string;
  message: string;
  pos: [number, number];
}

/** A parse error in the words of someone who wrote the YAML, and where the mistake was made. */
export interface YamlSyntaxProblem {
  range: SourceRange;
  message: string;
  /** The errors after this one in the same document follow from it (a missing `---`). */
  masksRest?: boolean;
}

// `key: value` on one line, optionally as a list item: the key's column and the value.
const KEY_VALUE = /^(\s*(?:-\s+)?)([^\s#'"[{][^:#]*?):(?:\s+(\S.*))?$/;
const KEY_LINE = /^\s*(?:-\s+)?[^\s#'"[{-][^:#]*?:(\s|$)/;

interface Line {
  number: number;
  text: string;
  indent: number;
}

/**
 * Explains the parse errors a first-time author meets (a key indented one space too far, a list
 * item out of line, `key:value` with no space, an unquoted `: ` in a value, a bracket or quote left
 * open, a key given twice, two documents with no `---` between them) at the line where the
 * mistake was made, instead of the library's words for where its parser gave up ("Nested mappings
 * are not allowed in compact mappings" on the line above). Anything else keeps the library's message.
 */
export function yamlSyntaxProblem(
  text: string,
  lineCounter: LineCounter,
  error: YamlError,
  // The text's lines, split once by a caller with many errors to explain.
  lines: readonly string[] = text.split('\n'),
): YamlSyntaxProblem {
  const [start, end] = error.pos;
  const at = offsetRange(lineCounter, start, end);
  const line = (n: number): Line | undefined => {
    const raw = lines[n - 1];
    if (raw === undefined) return undefined;
    const body = raw.replace(/\r$/, '');
    return { number: n, text: body, indent: body.length - body.trimStart().length };
  };
  const significant = (n: number, step: 1 | -1): Line | undefined => {
    for (let i = n + step; i >= 1 && i <= lines.length; i += step) {
      const candidate = line(i);
      if (candidate && candidate.text.trim() !== '' && !candidate.text.trimStart().startsWith('#'))
        return candidate;
    }
    return undefined;
  };
  const pointAt = (l: Line): SourceRange => ({
    line: l.number,
    col: l.indent + 1,
    endLine: l.number,
    endCol: l.text.length + 1,
  });
  const here = line(at.line);
  const library = libraryMessage(error);
  if (!here) return { range: at, message: library };

  switch (error.code) {
    case 'TAB_AS_INDENT':
      return { range: at, message: 'tabs are not allowed for indentation in YAML; use spaces' };
    case 'TAG_RESOLVE_FAILED': {
      // YAML_OPTIONS leaves YAML 1.1's types (and any custom tag) unresolved: the node is read as
      // the plain value it is written as, and the tag said to do nothing.
      const tag = /Unresolved tag: (\S+)/.exec(error.message)?.[1] ?? 'this tag';
      const shown = tag.replace(/^tag:yaml\.org,2002:/, '!!');
      return {
        range: at,
        message: `the tag ${excerpt(shown)} is ignored: the value is read as the plain mapping, list or text it is written as`,
      };
    }
    case 'DUPLICATE_KEY': {
      const key = keyName(here.text.slice(at.col - 1));
      const earlier = firstKey(here, key, line);
      const where = earlier ? ` (first on line ${earlier.number})` : '';
      if (key === 'kind' && here.indent === 0)
        return {
          range: pointAt(here),
          message: `a second \`kind:\` in one document${where}: a new document starts here, so put \`---\` on the line above it`,
          masksRest: true,
        };
      return {
        range: at,
        message: `duplicate key: \`${excerpt(key)}\` is given twice in one mapping${where}; keep one`,
      };
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      const keyValue = KEY_VALUE.exec(here.text);
      const next = significant(here.number, 1);
      if (keyValue?.[3] !== undefined && next && next.indent > here.indent && KEY_LINE.test(next.text)) {
        const key = keyValue[2].trim();
        return {
          range: pointAt(next),
          message:
            `\`${excerpt(keyName(next.text))}\` is indented more than \`${excerpt(key)}\` on line ${here.number}, ` +
            `which already has a value: line the keys up in one column, or remove the value after ` +
            `\`${excerpt(key)}:\` to nest under it`,
        };
      }
      const colon = keyValue?.[3]?.search(/:(\s|$)/) ?? -1;
      if (keyValue?.[3] !== undefined && colon >= 0) {
        const key = keyValue[2].trim();
        const value = keyValue[3];
        return {
          range: at,
          message: `the value of \`${excerpt(key)}\` holds \`: \`, which YAML reads as a key: put the value in quotes (\`${excerpt(key)}: ${excerpt(quote(value))}\`)`,
        };
      }
      if (/^\s*(?:-\s+)?[A-Za-z_][\w.-]*:\S/.test(here.text)) {
        return {
          range: pointAt(here),
          message: `a key needs a space after its colon: \`${excerpt(here.text.trim().replace(':', ': '))}\``,
        };
      }
      if (!here.text.includes(':') && /^\s*(?:-\s+)?[A-Za-z_]/.test(here.text)) {
        return {
          range: pointAt(here),
          message: `\`${excerpt(here.text.trim())}\` is not a \`key: value\` line: a key ends with a colon and a space`,
        };
      }
      if (here.text.trimStart().startsWith('-'))
        return listItemOutOfLine(here, significant, pointAt, library);
      return { range: at, message: library };
    }
    case 'MISSING_CHAR':
      if (/^Missing closing ["']quote/.test(error.message)) {
        const quote = error.message.includes('"quote') ? '"' : "'";
        // The opening quote is on the last line, from the error up, with an odd count of quotes.
        for (let n = here.number; n >= 1; n--) {
          const l = line(n);
          const count = l ? l.text.split(quote).length - 1 : 0;
          if (l && count % 2 === 1) {
            const col = l.text.indexOf(quote) + 1;
            return {
              range: { line: n, col, endLine: n, endCol: col + 1 },
              message: `this ${quote} is not closed: end the value with ${quote} (inside it, write ${quote === '"' ? '\\"' : "''"} for a ${quote})`,
            };
          }
        }
      }
      if (/Sequence item without - indicator/.test(error.message)) {
        const above = significant(here.number, -1);
        const item = above ? /^(\s*-\s+)\S/.exec(above.text) : null;
        if (above && item)
          return {
            range: pointAt(here),
            message: `line ${here.number} starts at column ${here.indent + 1}, out of line with the list item above it: a key of that item starts in column ${item[1].length + 1}, as on line ${above.number}; a new item starts with \`- \``,
          };
      }
      return { range: at, message: library };
    case 'BAD_INDENT':
      if (/^Flow (sequence|mapping)/.test(error.message)) {
        const open = /sequence/.test(error.message) ? ['[', ']'] : ['{', '}'];
        // Shown at the bracket left open, the mistake, rather than where the parser gave up.
        const opened = unclosed(text, start, open[0], open[1]);
        return {
          range: opened >= 0 ? offsetRange(lineCounter, opened, opened + 1) : at,
          message: `this \`${open[0]}\` is not closed: end it with \`${open[1]}\` (a value spread over several lines is indented more than its key)`,
        };
      }
      if (/items must start at the same column/.test(error.message)) {
        const above = significant(here.number, -1);
        const what = here.text.trimStart().startsWith('-') ? 'items of one list' : 'keys of one mapping';
        const hint = above ? ` (line ${above.number} starts at column ${above.indent + 1})` : '';
        return {
          range: pointAt(here),
          message: `line ${here.number} starts at column ${here.indent + 1}, out of line with the lines above it${hint}: ${what} start in the same column`,
        };
      }
      return { range: at, message: library };
    case 'UNEXPECTED_TOKEN':
      return unexpectedToken(here, at, error.message) ?? { range: at, message: library };
    case 'BAD_SCALAR_START': {
      // `instruction: @mention`, `` `code` ``, `%x`: characters YAML keeps for itself.
      const keyValue = KEY_VALUE.exec(here.text);
      if (keyValue?.[3] === undefined) return { range: at, message: library };
      const key = keyValue[2].trim();
      const value = keyValue[3];
      return {
        range: at,
        message: `a value cannot start with ${value[0] === '`' ? 'a backtick' : `\`${value[0]}\``} unless it is quoted: write \`${excerpt(key)}: ${excerpt(quote(value))}\``,
      };
    }
    default:
      return { range: at, message: library };
  }
}

// The value in quotes YAML reads back as it was written.
function quote(value: string): string {
  return value.includes('"') ? `'${value.replaceAll("'", "''")}'` : `"${value}"`;
}

function unexpectedToken(here: Line, at: SourceRange, message: string): YamlSyntaxProblem | undefined {
  if (/block-seq-ind on same line with key/.test(message)) {
    // `instruction: - be brief`: a list cannot start on its key's line.
    const keyValue = KEY_VALUE.exec(here.text);
    if (keyValue?.[3] === undefined) return undefined;
    const key = keyValue[2].trim();
    return {
      range: at,
      message: `\`- \` after \`${excerpt(key)}:\` on its line would start a list, which YAML does not allow there: quote the text (\`${excerpt(key)}: ${excerpt(quote(keyValue[3]))}\`), or put each item on a line of its own below \`${excerpt(key)}:\`, indented, starting with \`- \``,
    };
  }
  if (!/scalar at node end/.test(message)) return undefined;
  // Text after a value that has ended: a closing quote or bracket before the end of the line.
  const before = here.text.slice(0, at.col - 1).trimEnd();
  const closed = before[before.length - 1];
  if (closed === '"' || closed === "'") {
    const inside = closed === '"' ? '`\\"`' : "`''`";
    const other = closed === '"' ? ' (or quote the whole value with `\'`, inside which `"` is plain)' : '';
    return {
      range: at,
      message: `text after the closing ${closed} of a quoted value: a ${closed} inside the value is written ${inside}${other}`,
    };
  }
  if (closed === ']' || closed === '}')
    return {
      range: at,
      message: `text after the closing \`${closed}\` of a value: nothing may follow it on the line (quote the whole value if the brackets are text)`,
    };
  return undefined;
}

function listItemOutOfLine(
  here: Line,
  significant: (n: number, step: 1 | -1) => Line | undefined,
  pointAt: (l: Line) => SourceRange,
  fallback: string,
): YamlSyntaxProblem {
  const above = significant(here.number, -1);
  if (!above) return { range: pointAt(here), message: fallback };
  return {
    range: pointAt(here),
    message: `this list item starts at column ${here.indent + 1}, out of line with the lines above it (line ${above.number} starts at column ${above.indent + 1}): items of one list start in the same column`,
  };
}

// The last `open` before `end` that no `close` after it matches, or -1.
function unclosed(text: string, end: number, open: string, close: string): number {
  let depth = 0;
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] === close) depth++;
    else if (text[i] === open && depth-- === 0) return i;
  }
  return -1;
}

// The line above `here` where the same mapping first gave `key`, if it is a block mapping.
function firstKey(here: Line, key: string, line: (n: number) => Line | undefined): Line | undefined {
  for (let n = here.number - 1; n >= 1; n--) {
    const above = line(n);
    if (!above || above.text.trim() === '' || above.text.trimStart().startsWith('#')) continue;
    if (/^(---|\.\.\.)(\s|$)/.test(above.text) || above.indent < here.indent) return undefined;
    if (above.indent === here.indent && keyName(above.text) === key) return above;
  }
  return undefined;
}

function keyName(text: string): string {
  return text.trim().replace(/^-\s+/, '').split(':')[0].trim();
}

function libraryMessage(error: YamlError): string {
  // The library's message can carry a code frame over several lines; the first line is the message.
  return error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}
