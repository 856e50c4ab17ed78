#!/usr/bin/env node
// Writes docs/api.md, the reference of everything `media-fidelity` exports, from the TypeScript
// sources and their TSDoc, with the compiler the workspace already has (no extra tool).
//
//   node scripts/api-report.mjs            rewrite docs/api.md
//   node scripts/api-report.mjs --check    exit 1 when docs/api.md is not current, an export or an
//                                          option (a member of an *Options / *Settings type) has no
//                                          documentation, documentation names a source file, or a
//                                          public signature names a type that is not exported (what
//                                          API Extractor calls a forgotten export)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = path.join(root, 'packages', 'fidelity');
const srcDir = path.join(pkgDir, 'src');
const entry = path.join(srcDir, 'index.ts');
// The light entry, `media-fidelity/base`: a subset of the index's names that loads no room (docs/performance.md, "Start-up").
const baseEntry = path.join(srcDir, 'base.ts');
// The verifying entry, `media-fidelity/verify`: the names `fidelity verify` uses, without the index's other rooms.
const verifyEntry = path.join(srcDir, 'verify.ts');
const outFile = path.join(root, 'docs', 'api.md');

function loadProgram() {
  const configFile = path.join(pkgDir, 'tsconfig.json');
  const config = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, pkgDir);
  // Declarations only matter through the checker; nothing is emitted.
  return ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true, composite: false, incremental: false } });
}

const rel = (file) => path.relative(root, file).split(path.sep).join('/');

function docOf(symbol, checker) {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const tags = symbol.getJsDocTags(checker).map((t) => ({ name: t.name, text: ts.displayPartsToString(t.text ?? []).trim() }));
  return { text, tags };
}

function kindOf(decl, checker, symbol) {
  if (ts.isFunctionDeclaration(decl)) return 'function';
  if (ts.isClassDeclaration(decl)) return 'class';
  if (ts.isInterfaceDeclaration(decl)) return 'interface';
  if (ts.isTypeAliasDeclaration(decl)) return 'type';
  if (ts.isVariableDeclaration(decl)) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
    if (type.getCallSignatures().length > 0 && decl.initializer && (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer))) return 'function';
    if (type.getProperty('_zod')) return 'schema';
    return 'const';
  }
  return 'other';
}

const printer = ts.createPrinter({ removeComments: true });
const PRINT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** The declaration's own text without its doc comment: interfaces and type aliases read best as written. */
function sourceText(decl) {
  const sf = decl.getSourceFile();
  return sf.text.slice(decl.getStart(sf, false), decl.getEnd()).replace(/^export (declare )?/, '').trim();
}

function signatureOf(name, kind, decl, symbol, checker) {
  if (kind === 'function' && ts.isFunctionDeclaration(decl)) {
    // As written: the checker would expand zod-inferred aliases into their whole object types.
    const one = (d) => {
      const typeParams = d.typeParameters ? `<${d.typeParameters.map((t) => t.getText()).join(', ')}>` : '';
      const params = d.parameters.map((p) => stripComments(p.getText()).replace(/\s+/g, ' ')).join(', ');
      const ret = d.type ? `: ${d.type.getText().replace(/\s+/g, ' ')}` : '';
      return `function ${name}${typeParams}(${params})${ret}`;
    };
    // Every overload a caller can use (the implementation's own signature is not callable when there are overloads).
    const overloads = (symbol.declarations ?? []).filter((d) => ts.isFunctionDeclaration(d) && d.body === undefined);
    return (overloads.length > 0 ? overloads : [decl]).map(one).join('\n');
  }
  if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
    return type.getCallSignatures().map((s) => `function ${name}${checker.signatureToString(s, undefined, PRINT)}`).join('\n');
  }
  // Member comments stay: they are the documentation of each field.
  if (kind === 'interface' || kind === 'type') return sourceText(decl);
  if (kind === 'class') {
    const lines = [`class ${name}${decl.heritageClauses ? ` ${decl.heritageClauses.map((h) => h.getText()).join(' ')}` : ''} {`];
    for (const m of decl.members) {
      if (m.modifiers?.some((x) => x.kind === ts.SyntaxKind.PrivateKeyword)) continue;
      const params = (fn) => fn.parameters.map((p) => stripComments(p.getText()).replace(/\s+/g, ' ')).join(', ');
      if (ts.isPropertyDeclaration(m)) {
        const text = stripComments(m.getText()).replace(/\s+/g, ' ').trim();
        lines.push(`  ${text.endsWith(';') ? text : `${text};`}`);
      } else if (ts.isConstructorDeclaration(m)) {
        lines.push(`  constructor(${params(m)});`);
      } else if (ts.isMethodDeclaration(m)) {
        lines.push(`  ${m.name.getText()}(${params(m)})${m.type ? `: ${m.type.getText()}` : ''};`);
      }
    }
    lines.push('}');
    return lines.join('\n');
  }
  if (kind === 'schema') {
    const alias = symbol.declarations.find((d) => ts.isTypeAliasDeclaration(d));
    const head = `const ${name}: z.ZodType  // zod schema; the type ${name} is z.infer<typeof ${name}>`;
    if (!alias) return head;
    // The shape as a type, written out: what a caller reads or writes. IgnoreErrors: a shape that
    // names a type the node builder cannot reach by an accessible name is still written out whole.
    const node = checker.typeToTypeNode(checker.getDeclaredTypeOfSymbol(symbol), undefined, ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.MultilineObjectLiterals | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.IgnoreErrors);
    const printed = node ? printer.printNode(ts.EmitHint.Unspecified, node, decl.getSourceFile()) : '';
    return `${head}\ntype ${name} = ${printed.replace(/    /g, '  ')};`;
  }
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  let text = checker.typeToString(type, decl, PRINT);
  if (text.length > 400) text = `${text.slice(0, 400)}...`;
  return `const ${name}: ${text}`;
}

function stripComments(text) {
  return text
    .replace(/\/\*\*[\s\S]*?\*\/\s*/g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/\n\s*\n/g, '\n');
}

/** Types named in a declaration's signature that live in the package sources but are not exported. */
function forgottenTypes(decl, checker, exported) {
  const out = new Set();
  const visit = (node) => {
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
      const nameNode = ts.isTypeReferenceNode(node) ? node.typeName : ts.isTypeQueryNode(node) ? node.exprName : node.expression;
      let sym = checker.getSymbolAtLocation(nameNode);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const d = sym?.declarations?.[0];
      if (d && !d.getSourceFile().fileName.includes('node_modules') && d.getSourceFile().fileName.startsWith(srcDir) && !exported.has(sym)) {
        if (!(sym.flags & ts.SymbolFlags.TypeParameter)) out.add(`${sym.getName()} (${rel(d.getSourceFile().fileName)})`);
      }
    }
    // Function bodies and initialisers are not part of the public shape.
    if (ts.isBlock(node)) return;
    ts.forEachChild(node, visit);
  };
  if (ts.isVariableDeclaration(decl)) {
    if (decl.type) visit(decl.type);
  } else if (ts.isFunctionDeclaration(decl)) {
    for (const p of decl.parameters) if (p.type) visit(p.type);
    if (decl.type) visit(decl.type);
  } else {
    ts.forEachChild(decl, visit);
  }
  return [...out];
}

/** A source file's name (`output/atomic.ts`, `errors.ts`): users have the docs, not the sources' layout. */
export const SOURCE_FILE = /(?<![\w.-])(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mts|cts)\b|(?<![\w.-])(?:[\w.-]+\/)+[\w-]+\.(?:js|mjs|cjs)\b/g;

/** An interface or object type of options: each of its members is an option a caller sets. */
export const OPTIONS_TYPE = /(?:Options|Settings)$/;

function docText(symbol, checker) {
  const tags = symbol.getJsDocTags(checker).map((t) => ts.displayPartsToString(t.text ?? []));
  return [ts.displayPartsToString(symbol.getDocumentationComment(checker)), ...tags].join('\n');
}

/**
 * What an export's TSDoc must not leave out or say: an option (a member of an `*Options` or
 * `*Settings` type) without documentation, and a source file named in the export's documentation
 * or in any of its members'.
 */
function docProblems(name, target, checker) {
  const undocumented = [];
  const files = (docText(target, checker).match(SOURCE_FILE) ?? []).map((f) => `${name}: ${f}`);
  for (const d of target.declarations ?? []) {
    const members = ts.isInterfaceDeclaration(d) ? d.members : ts.isTypeAliasDeclaration(d) && ts.isTypeLiteralNode(d.type) ? d.type.members : [];
    for (const m of members) {
      const symbol = m.name ? checker.getSymbolAtLocation(m.name) : undefined;
      if (!symbol) continue;
      const member = `${name}.${symbol.getName()}`;
      if (OPTIONS_TYPE.test(name) && !ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()) undocumented.push(`${member} (${rel(d.getSourceFile().fileName)})`);
      files.push(...(docText(symbol, checker).match(SOURCE_FILE) ?? []).map((f) => `${member}: ${f}`));
    }
  }
  return { undocumented, files };
}

export function buildReport() {
  const program = loadProgram();
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(entry);
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  const exports = checker.getExportsOfModule(moduleSymbol);
  const targets = new Set();
  const items = [];
  for (const exp of exports) {
    const target = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
    targets.add(target);
  }
  const undocumented = [];
  const forgotten = [];
  const namedFiles = [];
  for (const exp of exports) {
    const name = exp.getName();
    const target = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
    // A zod schema and its inferred type share one name: document both under one entry.
    const decls = target.declarations ?? [];
    const value = decls.find((d) => !ts.isTypeAliasDeclaration(d) && !ts.isInterfaceDeclaration(d)) ?? decls[0];
    if (!value) continue;
    const kind = kindOf(value, checker, target);
    const doc = docOf(target, checker);
    const typeDecl = decls.find((d) => ts.isTypeAliasDeclaration(d) || ts.isInterfaceDeclaration(d));
    if (!doc.text) undocumented.push(`${name} (${rel(value.getSourceFile().fileName)})`);
    const problems = docProblems(name, target, checker);
    undocumented.push(...problems.undocumented);
    namedFiles.push(...problems.files);
    for (const d of decls) forgotten.push(...forgottenTypes(d, checker, targets).map((t) => `${name} -> ${t}`));
    items.push({
      name,
      kind,
      file: rel(value.getSourceFile().fileName),
      signature: signatureOf(name, kind, value, target, checker),
      alsoType: kind === 'schema' || (kind !== 'type' && kind !== 'interface' && typeDecl !== undefined),
      doc,
    });
  }
  items.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : a.name < b.name ? -1 : 1));
  // The light entry offers the index's own names, the same declarations: one documented name, two ways in.
  const baseNames = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(baseEntry))).map((e) => e.getName()).sort();
  const byName = new Map(exports.map((e) => [e.getName(), e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e]));
  const entryOnly = (file, name) =>
    checker
      .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)))
      .filter((e) => byName.get(e.getName()) !== (e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e))
      .map((e) => `${name}: ${e.getName()}`);
  const baseOnly = [...entryOnly(baseEntry, 'base'), ...entryOnly(verifyEntry, 'verify')];
  const verifyNames = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(verifyEntry))).map((e) => e.getName()).sort();
  return { markdown: render(items, baseNames, verifyNames), undocumented, forgotten: [...new Set(forgotten)].sort(), baseOnly, namedFiles };
}

const SECTIONS = [
  ['function', 'Functions'],
  ['class', 'Classes'],
  ['schema', 'zod schemas (each is also a type)'],
  ['const', 'Constants'],
  ['interface', 'Interfaces'],
  ['type', 'Types'],
];

function render(items, baseNames, verifyNames) {
  const out = [
    '# media-fidelity API reference',
    '',
    '<!-- Generated by `node scripts/api-report.mjs` from packages/fidelity/src (exports of src/index.ts and their TSDoc). Do not edit: packages/fidelity/test/api.test.ts fails when this file is not current. -->',
    '',
    `Everything \`import { ... } from 'media-fidelity'\` offers: ${items.length} exports. Errors are \`FidelityError\`s`,
    'with a stable `code` ([reason-codes.md](reason-codes.md)); the input format is [run-archive.md](run-archive.md).',
    'The index loads each room of the library when one of its functions is first called (sharp, the measuring pool, the',
    'pages, the page scanner, the archive readers and octokit: [performance.md](performance.md), "Start-up").',
    '',
    `\`media-fidelity/base\` offers ${baseNames.length} of these names, the same declarations, and loads no room of the library and no zod: for a`,
    'program that starts often and mostly does little (the CLI\'s `--version`, `--help` and usage errors).',
    '',
    baseNames.map((n) => `[\`${n}\`](#${anchor(n)})`).join(' · '),
    '',
    `\`media-fidelity/verify\` offers ${verifyNames.length} of these names, the same declarations, and loads the archive, its schemas and the probe`,
    'but not the rooms of measuring, the pages, the bundle or the synthetic runs: for a program that checks run archives (`fidelity verify`).',
    '',
    verifyNames.map((n) => `[\`${n}\`](#${anchor(n)})`).join(' · '),
    '',
  ];
  for (const [kind, title] of SECTIONS) {
    const list = items.filter((i) => i.kind === kind);
    if (list.length === 0) continue;
    out.push(`## ${title}`, '');
    out.push(list.map((i) => `[\`${i.name}\`](#${anchor(i.name)})`).join(' · '), '');
    for (const i of list) {
      out.push(`### ${i.name}`, '');
      out.push('```ts', i.signature, '```', '');
      if (i.doc.text) out.push(links(i.doc.text), '');
      for (const t of i.doc.tags) {
        if (t.name === 'example') out.push('**Example**', '', t.text.includes('```') ? t.text : `\`\`\`ts\n${t.text}\n\`\`\``, '');
        else if (t.name === 'throws') out.push(`**Throws** ${links(t.text)}`, '');
        else if (t.name === 'param') out.push(`- \`${t.text.split(/\s/)[0]}\`${t.text.slice(t.text.split(/\s/)[0].length).replace(/^\s*-?\s*/, ': ')}`);
        else if (t.name === 'returns') out.push(`**Returns** ${t.text}`, '');
        else if (t.name === 'see') out.push(`**See** ${t.text}`, '');
        else if (t.name === 'deprecated') out.push(`**Deprecated** ${t.text}`, '');
      }
      if (i.doc.tags.some((t) => t.name === 'param')) out.push('');
      out.push(`<sub>${i.file}</sub>`, '');
    }
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function links(text) {
  return text.replace(/\{@link\s+([A-Za-z0-9_]+)\s*\}/g, (_, n) => `[\`${n}\`](#${anchor(n)})`);
}

function anchor(name) {
  return name.toLowerCase().replace(/[^a-z0-9_-]/g, '');
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { markdown, undocumented, forgotten, baseOnly, namedFiles } = buildReport();
  if (process.argv.includes('--check')) {
    let ok = true;
    let current = '';
    try {
      current = readFileSync(outFile, 'utf8');
    } catch {}
    if (current !== markdown) {
      ok = false;
      process.stderr.write('docs/api.md is not current: run `npm run api` and commit it\n');
    }
    if (undocumented.length) {
      ok = false;
      process.stderr.write(`exports or options without documentation:\n  ${undocumented.join('\n  ')}\n`);
    }
    if (baseOnly.length) {
      ok = false;
      process.stderr.write(`media-fidelity/base or media-fidelity/verify exports names the index does not (or other declarations of them):\n  ${baseOnly.join('\n  ')}\n`);
    }
    if (namedFiles.length) {
      ok = false;
      process.stderr.write(`documentation names a source file (say what it does instead):\n  ${namedFiles.join('\n  ')}\n`);
    }
    if (forgotten.length) {
      ok = false;
      process.stderr.write(`public signatures name types that are not exported:\n  ${forgotten.join('\n  ')}\n`);
    }
    process.exit(ok ? 0 : 1);
  } else {
    writeFileSync(outFile, markdown);
    process.stderr.write(`wrote ${rel(outFile)}; ${undocumented.length} exports or options without documentation, ${namedFiles.length} source files named, ${forgotten.length} forgotten exports\n`);
    if (process.argv.includes('--list')) process.stderr.write(`${undocumented.join('\n')}\n--\n${forgotten.join('\n')}\n`);
  }
}
