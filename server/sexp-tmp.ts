import { parseSource } from './src/modules/code-analysis/parsing/parse';
const p = await parseSource(process.argv[2] ?? '', 'go');
console.log(p.tree.rootNode.toString());
