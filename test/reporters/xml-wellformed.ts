/**
 * A small XML 1.0 well-formedness check for the reporters' output: one root element,
 * balanced tags, quoted attributes without `<` or a bare `&`, only predefined or numeric
 * entity references, and only characters XML 1.0 allows. Returns the problems found.
 */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const invalid = xml.match(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
  if (invalid) problems.push(`invalid XML character U+${invalid[0].codePointAt(0)?.toString(16)}`);
  const checkEntities = (text: string, where: string) => {
    for (const m of text.matchAll(/&([^;]*);?/g)) {
      if (!/^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);$/.test(m[0]))
        problems.push(`bad entity ${m[0]} in ${where}`);
    }
  };
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const token = /^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/;
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const text = lt < 0 ? rest : rest.slice(0, lt);
    if (text.includes('>')) problems.push(`raw '>' in text near ${JSON.stringify(text.slice(0, 40))}`);
    if (stack.length === 0 && text.trim() !== '') problems.push('text outside the root element');
    checkEntities(text, 'text');
    if (lt < 0) break;
    rest = rest.slice(lt);
    const m = token.exec(rest);
    if (!m) {
      problems.push(`malformed tag near ${JSON.stringify(rest.slice(0, 60))}`);
      break;
    }
    const [whole, closing, name = '', attrs = '', selfClosing] = m;
    checkEntities(attrs, `attributes of <${name}>`);
    if (closing) {
      if (stack.pop() !== name) problems.push(`unbalanced </${name}>`);
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name);
    }
    rest = rest.slice(whole.length);
  }
  if (stack.length > 0) problems.push(`unclosed <${stack.join('> <')}>`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}
