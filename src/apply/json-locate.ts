/**
 * Where JSON text stops being JSON. V8's JSON.parse reports an offset for some errors only
 * ("Unexpected token '}', ... is not valid JSON" has none); this small strict scanner finds the
 * offset of the first character that cannot continue a JSON value (RFC 8259). Used only after
 * JSON.parse failed, to name the line and column; with `duplicates`, also the first key repeated
 * within one object (JSON.parse keeps the last silently; YAML refuses them). Pure.
 */
export function jsonErrorOffset(text: string): number {
  return jsonScan(text).offset;
}

/** The offset of the first problem (-1: none) and, for a duplicate key, what it is. */
export function jsonScan(text: string, duplicates = false): { offset: number; reason: string } {
  let i = 0;
  let reason = '';
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    for (const c of word) {
      if (text[i] !== c) fail();
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') fail();
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) ((i += k), fail());
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail();
      }
      i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      const keys = duplicates ? new Set<string>() : undefined;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const start = i;
        string();
        if (keys) {
          const key = JSON.parse(text.slice(start, i)) as string;
          if (keys.has(key)) {
            i = start;
            reason = `duplicated mapping key ${JSON.stringify(key)}`;
            fail();
          }
          keys.add(key);
        }
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') return void i++;
        fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') return void i++;
        fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    return number();
  };
  try {
    value();
    ws();
    return { offset: i < text.length ? i : -1, reason };
  } catch (at) {
    return { offset: at as number, reason };
  }
}
