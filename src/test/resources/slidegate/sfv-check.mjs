// An independent reader of Slidegate's RateLimit fields (StructuredFieldsTest): each value is parsed by the
// structured-headers library (RFC 9651, JavaScript), not by Slidegate's own code, and checked against the IETF draft
// draft-ietf-httpapi-ratelimit-headers-11. Reads [{name, value}] as JSON on stdin, writes one verdict per field.
import { parseList } from 'structured-headers';

const REGISTERED = new Set(['requests', 'content-bytes', 'concurrent-requests']);
const nonNegativeInteger = x => typeof x === 'number' && Number.isInteger(x) && x >= 0;

function check(name, value) {
  const problems = [];
  let list;
  try {
    list = parseList(value);
  } catch (e) {
    return [name, value, ['not a structured list: ' + e.message]];
  }
  if (list.length === 0) problems.push('an empty list');
  for (const [item, params] of list) {
    if (typeof item !== 'string') problems.push('an item that is no string: ' + String(item));
    const known = name === 'RateLimit-Policy' ? ['q', 'qu', 'w', 'pk'] : ['r', 't', 'pk'];
    for (const [key, v] of params) {
      if (!known.includes(key) && !/^[a-z][a-z0-9]*-/.test(key)) problems.push('a parameter neither defined nor vendor-prefixed: ' + key);
      if (key === 'qu' && (typeof v !== 'string' || !(REGISTERED.has(v) || /^[a-z][a-z0-9]*-[a-z0-9-]+$/.test(v)))) {
        problems.push('a unit neither registered nor vendor-prefixed: ' + String(v));
      }
      if (key === 'pk' && !(v instanceof ArrayBuffer)) problems.push('a partition key that is no byte sequence');
      if ((key === 'q' || key === 'r' || key === 't') && !nonNegativeInteger(v)) problems.push(key + ' is no non-negative integer: ' + v);
      if (key === 'w' && !(nonNegativeInteger(v) && v > 0)) problems.push('w is no positive integer: ' + v);
    }
    if (name === 'RateLimit-Policy' && !params.has('q')) problems.push('a policy item without q');
    if (name === 'RateLimit' && !params.has('r')) problems.push('a service limit item without r');
  }
  return [name, value, problems];
}

let input = '';
process.stdin.on('data', d => { input += d; });
process.stdin.on('end', () => {
  const verdicts = JSON.parse(input).map(f => check(f.name, f.value));
  process.stdout.write(JSON.stringify(verdicts));
});
