// An ESLint rule that keeps server modules apart (issue 17): from outside a module, the only
// file of server/modules/<m>/ that may be imported is its public face, index.ts (written `../m`,
// `../m/index`, `./modules/m`…). Inside a module anything of its own goes. Paths are resolved,
// so the rule holds whatever the depth of the importing file.
import { dirname, relative, resolve, sep } from 'node:path';

const MODULES = resolve(import.meta.dirname, '../../server/modules');

/** The module a path is in, and the path inside it ('' for the module folder itself). */
function place(path) {
  const rel = relative(MODULES, path);
  if (rel.startsWith('..') || rel === '') return null;
  const [module, ...rest] = rel.split(sep);
  return { module, inner: rest.join('/').replace(/\.(ts|tsx|js)$/, '') };
}

/** @type {import('eslint').Rule.RuleModule} */
export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Import another server module only through its index.ts (its public face)' },
    messages: {
      internal:
        "'{{spec}}' reaches inside the {{module}} module: import its public face ('{{face}}') instead, and export what you need from server/modules/{{module}}/index.ts.",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = place(file);
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = place(resolve(dirname(file), spec));
      if (!target || target.module === from?.module) return;
      if (target.inner === '' || target.inner === 'index') return;
      const face = relative(dirname(file), resolve(MODULES, target.module)).split(sep).join('/');
      context.report({
        node: node.source,
        messageId: 'internal',
        data: { spec, module: target.module, face: face.startsWith('.') ? face : `./${face}` },
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: (node) => {
        if (node.source.type === 'Literal') check({ source: node.source });
      },
    };
  },
};
