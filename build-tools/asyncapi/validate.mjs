// Validates the AsyncAPI document with the AsyncAPI initiative's own parser: exits 1 on any error-level
// diagnostic and prints every diagnostic. Usage: node validate.mjs <asyncapi.json>
import { readFile } from 'node:fs/promises';
import { Parser } from '@asyncapi/parser';

const file = process.argv[2];
const parser = new Parser();
const { document, diagnostics } = await parser.parse(await readFile(file, 'utf8'));
let errors = 0;
for (const d of diagnostics) {
  const level = ['error', 'warning', 'info', 'hint'][d.severity] ?? String(d.severity);
  if (d.severity === 0) errors++;
  console.log(`${level} ${d.code} ${d.path.join('/')}: ${d.message}`);
}
if (errors > 0 || !document) {
  console.error(`${file}: ${errors} error(s)`);
  process.exit(1);
}
console.log(`${file}: valid AsyncAPI ${document.version()}, ${document.channels().length} channels, ${document.operations().length} operations`);
