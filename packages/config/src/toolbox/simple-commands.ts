// Operators and brackets that end one simple command and start another: `;`, `&`, `|` (and `&&`,
// `||`), newlines, backticks, `$(`, `(`, `)`. Quotes are not honoured here on purpose: a `;` inside
// quotes makes one part too many, which can only make a deny pattern match more.
const SEPARATORS = /\|\||&&|[;&|\n\r`()]|\$\(/;

// Words in front of a command that leave the program it runs unchanged: the shell's reserved
// words, and wrappers run as `WRAPPER PROGRAM ...` (without options of their own).
const LEADING = new Set(
  '! { } if then else elif fi do done while until time command builtin exec nohup env sudo'.split(' '),
);

// A redirection operator with its target in the next word, or joined to it.
const REDIRECTION_ALONE = /^\d*(?:[<>]|>>|>&|<&|&>|>\|)$/;
const REDIRECTION = /^\d*[<>]/;

// `NAME=value` in front of a command sets a variable for it.
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The simple commands of a shell line as a deny pattern should see them, each as written and as
 * the shell would read its words: quotes and backslashes removed (`r''m`, `\rm`), leading
 * reserved words, wrappers and `NAME=value` words dropped (`then rm`, `env X=1 rm`), the program
 * named by its last path segment (`/bin/rm`), leading redirections dropped, whitespace made single
 * spaces. Best effort, not a parser: it does not see through variables (`rm${IFS}-rf`), `eval`, `sh -c '...'`,
 * aliases, functions, or programs that run others (`xargs rm`, `find -exec rm`).
 *
 * @example
 * simpleCommands("ls; (r''m -rf x)"); // ['ls', "r''m -rf x", 'rm -rf x']
 */
export function simpleCommands(line: string): string[] {
  const out = new Set<string>();
  for (const raw of line.split(SEPARATORS)) {
    const part = raw.trim();
    if (part === '') continue;
    out.add(part);
    const words = shellWords(part);
    for (;;) {
      if (words.length === 0) break;
      if (LEADING.has(words[0]) || ASSIGNMENT.test(words[0])) words.shift();
      // `>out rm x`, `2> out rm x`: a redirection may come first, with its target.
      else if (REDIRECTION_ALONE.test(words[0])) words.splice(0, 2);
      else if (REDIRECTION.test(words[0])) words.shift();
      else break;
    }
    if (words.length === 0) continue;
    out.add(words.join(' '));
    const program = words[0].slice(words[0].lastIndexOf('/') + 1);
    if (program !== words[0] && program !== '') out.add([program, ...words.slice(1)].join(' '));
  }
  return [...out];
}

// The words of a piece of a line as the shell splits them: whitespace outside quotes separates,
// quotes and backslashes are removed (`X="a b"` is one word, `r''m` is `rm`), and a `$` that opens
// a `$'...'` or `$"..."` quote is dropped. An unclosed quote runs to the end.
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === '$' && (text[i + 1] === "'" || text[i + 1] === '"')) {
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}
