import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import type { PythonCallRule } from './python-call-rule';
import { argument, literalString, nodeText, type PythonCall } from './python-imports';
import { wildcardInjection } from './wildcard-injection';

const DESERIALISE =
  '`{call}` runs code found in the data it loads; load only data this program wrote itself, or use a data-only format (JSON, yaml.safe_load, torch.load(weights_only=True)).';

/** A keyword's text, if given. */
const keyword = (parsed: ParsedSource, call: PythonCall, name: string): string | undefined => {
  const value = call.keywords.get(name);
  return value && nodeText(parsed, value);
};

/** Python's falsy literals: `shell=0`, `shell=None`, `shell=[]` run no shell; `shell='False'` is a true string. */
const FALSY = /^(False|None|0|0\.0|\[\]|\{\}|\(\)|''|""|b''|b"")$/;

/** Whether a subprocess call runs its command line through a shell. */
export function runsShell(parsed: ParsedSource, call: PythonCall): boolean {
  if (/^(os\.(system|popen\d?)|commands\.\w+|subprocess\.(getoutput|getstatusoutput))$/.test(call.name))
    return true;
  const shell = keyword(parsed, call, 'shell');
  return shell !== undefined && !FALSY.test(shell);
}

/**
 * An archive the file binds to `tarfile.open(…)` / `TarFile(…)` (or a parameter annotated `tarfile.TarFile`), or the
 * call itself (`tarfile.open(path).extractall(dest)`): iterating it yields every member.
 */
const isArchive = (parsed: ParsedSource, name: string): boolean =>
  /^(tarfile\.open|TarFile(\.open)?)\(/.test(name) ||
  (/^\w+$/.test(name) &&
    new RegExp(
      `\\b${name}\\s*=\\s*(tarfile\\.open|TarFile(\\.open)?)\\(|(tarfile\\.open|TarFile(\\.open)?)\\(.*\\)\\s+as\\s+${name}\\b|\\b${name}\\s*:\\s*(tarfile\\.)?TarFile\\b`,
    ).test(parsed.source));

/** A file that imports tarfile and not zipfile: its `extractall` is tarfile's. */
const onlyTarfile = (parsed: ParsedSource): boolean =>
  /^\s*(import|from)\s+tarfile\b/m.test(parsed.source) && !/\bzipfile\b|ZipFile/.test(parsed.source);

/** `datasets`' packaged builders read local files (`load_dataset("csv", data_files=…)`), not the Hub. */
const LOCAL_BUILDERS =
  /^(csv|json|parquet|text|arrow|imagefolder|audiofolder|videofolder|webdataset|pandas|sql|xml|generator)$/;

/** Hugging Face's revision pinning: a commit hash (seven or more hex digits) is immutable, a branch or tag is not. */
const COMMIT = /^[0-9a-fA-F]{7,40}$/;

const firstArgument = (call: PythonCall, name: string): SyntaxNode | undefined => argument(call, 0, name);

/**
 * Risky Python APIs by qualified name (Bandit's B301-B320, B202, B310, B508/B509, B609, B615, B702, B704): what the
 * call does is the weakness, or a missing setting is. Confidence says how sure the call alone makes it: a setting
 * that is certainly off is medium or high, an API whose danger depends on where its data comes from is a low audit.
 */
export const PYTHON_RISKY_CALLS: PythonCallRule[] = [
  {
    // Bytes in memory come from somewhere this code shows: the dataflow proves whether that is input
    // (security/unsafe-deserialization); alone, `loads(bytes)` is an audit.
    id: 'security/unsafe-deserialization-api',
    yieldsTo: 'security/unsafe-deserialization',
    needles: ['pickle', 'dill', 'marshal', 'jsonpickle'],
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-502',
    message: DESERIALISE,
    callee:
      /^(pickle|cPickle|_pickle|dill|marshal)\.loads$|^jsonpickle\.(decode|unpickler\.decode|unpickler\.Unpickler)$/,
  },
  {
    // A file or stream's content is data no dataflow follows: whoever can write the file (a shared cache, a
    // downloaded model, an upload directory) runs code here, whatever the path's text says.
    id: 'security/unsafe-deserialization-api',
    yieldsTo: 'security/unsafe-deserialization',
    needles: ['pickle', 'dill', 'marshal', 'shelve'],
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-502',
    message: DESERIALISE,
    callee:
      /^(pickle|cPickle|_pickle|dill|marshal)\.(load|Unpickler)$|^shelve\.(open|DbfilenameShelf)$|^pandas\.read_pickle$/,
  },
  {
    // Whether the data can be an attacker's is the dataflow's to prove (security/unsafe-deserialization); alone,
    // an unsafe loader is an audit, however explicit: `yaml.load(constant, Loader=yaml.Loader)` is harmless.
    id: 'security/unsafe-deserialization-api',
    yieldsTo: 'security/unsafe-deserialization',
    needles: ['yaml', 'torch', 'numpy', 'np.'],
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-502',
    message: DESERIALISE,
    callee:
      /^yaml\.(load|load_all|unsafe_load|unsafe_load_all|full_load|full_load_all)$|^torch\.load$|^numpy\.load$/,
    judge: (call, parsed) => {
      // Both read a file (see above: medium); numpy unpickles only when allowed to.
      if (call.name === 'numpy.load') return keyword(parsed, call, 'allow_pickle') === 'True' && 'medium';
      // torch.load unpickles unless weights_only=True (the default from PyTorch 2.6 on).
      if (call.name === 'torch.load') return keyword(parsed, call, 'weights_only') !== 'True' && 'medium';
      if (call.name.includes('load') && !/^yaml\.(load|load_all)$/.test(call.name)) return true;
      const loader = argument(call, 1, 'Loader');
      // No loader named: the call relies on PyYAML's default, which constructed any object before 5.1 and was
      // FullLoader (CVE-2020-14343) until 5.4; Bandit's B506 reads it at high confidence. A document written in the
      // call is the code's own, an audit as above.
      if (!loader) {
        const document = firstArgument(call, 'stream');
        return document !== undefined && literalString(parsed, document) === undefined ? 'medium' : true;
      }
      return !/(^|\.)(C?SafeLoader|BaseLoader)$/.test(nodeText(parsed, loader));
    },
  },
  {
    id: 'security/insecure-temp-file',
    needles: ['mktemp', 'tmpnam', 'tempnam'],
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-377',
    message:
      '`{call}` returns a temporary file name that another process can create first (a race to a symlink); create the file atomically (tempfile.mkstemp / NamedTemporaryFile).',
    callee: /^tempfile\.mktemp$|^os\.(tempnam|tmpnam)$/,
  },
  {
    // Python's own parsers resolve no external entities; expat 2.4.1+ also limits expansion, so this is an audit.
    id: 'security/xml-entity-expansion',
    needles: ['xml'],
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-776',
    message:
      '`{call}` parses XML with a parser that expands entities (billion laughs, quadratic blowup with an older expat); parse untrusted XML with defusedxml.',
    callee:
      /^xml\.etree\.c?ElementTree\.(parse|iterparse|fromstring|fromstringlist|XML|XMLParser|XMLPullParser)$|^xml\.sax\.(parse|parseString|make_parser)$|^xml\.sax\.expatreader\.create_parser$|^xml\.dom\.(minidom|pulldom|expatbuilder)\.(parse|parseString)$|^xml\.parsers\.expat\.ParserCreate$/,
    judge: (_call, parsed) => !parsed.source.includes('defuse_stdlib'),
  },
  {
    // lxml resolved external entities by default before 5.0; a parser passed in may be hardened.
    id: 'security/xml-external-entities',
    yieldsTo: 'security/xxe',
    needles: ['lxml'],
    severity: 'high',
    confidence: 'low',
    cwe: 'CWE-611',
    message:
      "`{call}` parses with lxml's default parser, which resolves external entities before lxml 5.0 (a file read or request for the document's author); pass XMLParser(resolve_entities=False, no_network=True) or use defusedxml.",
    callee: /^lxml\.etree\.(parse|fromstring|XML|iterparse)$/,
    judge: (call) => argument(call, 1, 'parser') === undefined,
  },
  {
    id: 'security/url-scheme-unchecked',
    needles: ['URLopener'],
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-939',
    message:
      '`{call}` is a deprecated opener that also opens `file:` URLs and local paths; use urllib.request.urlopen or requests with a URL whose scheme you checked.',
    callee: /^(urllib|urllib\.request|six\.moves\.urllib\.request)\.(URLopener|FancyURLopener)$/,
  },
  {
    // A URL written in the call says what it opens; one from elsewhere may be `file:///etc/passwd`.
    id: 'security/url-scheme-unchecked',
    yieldsTo: 'security/ssrf',
    needles: ['url'],
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-939',
    message:
      "`{call}` opens any scheme it is given, `file:` included; check the URL's scheme (http/https) before opening it.",
    callee:
      /^(urllib|urllib\.request|urllib2|six\.moves\.urllib\.request)\.(urlopen|urlretrieve)$|^(urllib2|urllib\.request)\.Request$/,
    judge: (call, parsed) => {
      const url = firstArgument(call, 'url');
      return url !== undefined && url.type !== 'string' && literalString(parsed, url) === undefined;
    },
  },
  {
    id: 'security/template-autoescape-off',
    needles: ['mako'],
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      "`{call}` renders Mako templates, which do not escape HTML by default; pass default_filters=['h'] (or escape each expression with `| h`).",
    callee: /^mako\.(template\.Template|lookup\.TemplateLookup)$/,
    judge: (call, parsed) => !/['"]h['"]/.test(keyword(parsed, call, 'default_filters') ?? ''),
  },
  {
    // Markup()/mark_safe() vouch that text is HTML: a literal is the author's, anything else needs escaping first.
    id: 'security/unescaped-markup',
    yieldsTo: 'security/xss',
    needles: ['Markup', 'mark_safe', 'SafeString'],
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{call}` marks text built from values as safe HTML, so script in them reaches the page; escape the values (markupsafe.escape, format_html, Markup("…").format(v)).',
    callee:
      /^(markupsafe|flask|jinja2)\.Markup$|^django\.utils\.safestring\.(mark_safe|SafeString|SafeText)$/,
    judge: (call, parsed) => {
      const value = argument(call, 0, call.name.endsWith('Markup') ? 'object' : 's');
      if (!value || literalString(parsed, value) !== undefined) return false;
      return !/^([\w.]+\.)?(escape|conditional_escape|escape_silent)\(/.test(nodeText(parsed, value));
    },
  },
  {
    // tarfile extracts `../` names and links as they are until Python 3.14's default filter; ZipFile cleans names.
    id: 'security/archive-extraction',
    needles: ['tarfile'],
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-22',
    message:
      "`{call}` extracts an archive's member names as given, so `../` or a link can write outside the target; pass filter='data' (Python 3.12+) or members checked for traversal.",
    callee: /\.(extractall|extract)$/,
    judge: (call, parsed) => {
      const receiver = call.name.slice(0, call.name.lastIndexOf('.'));
      if (receiver !== 'tarfile' && !isArchive(parsed, receiver) && !onlyTarfile(parsed)) return false;
      const filter = keyword(parsed, call, 'filter');
      if (filter !== undefined) return /fully_trusted/.test(filter);
      const members = call.name.endsWith('extractall') ? argument(call, 1, 'members') : undefined;
      if (members === undefined) return true;
      // Members named by the archive itself (`members=tar`, `tar.getmembers()`) are all of them, unchecked.
      const text = nodeText(parsed, members).replace(/\.getmembers\(\)$/, '');
      return isArchive(parsed, text);
    },
  },
  {
    id: 'security/unpinned-model-download',
    needles: ['transformers', 'diffusers', 'datasets', 'huggingface_hub'],
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-494',
    message:
      "`{call}` downloads from the Hugging Face Hub without pinning a commit, so whoever controls the repository's branch or tag controls what runs; pass revision='<commit sha>'.",
    callee:
      /^(transformers|diffusers|sentence_transformers)\.\w+\.from_pretrained$|^datasets\.load_dataset$|^huggingface_hub\.(hf_hub_download|snapshot_download)$/,
    judge: (call, parsed) => {
      const revision = call.keywords.get('revision');
      if (revision) {
        const pinned = literalString(parsed, revision);
        return pinned !== undefined && !COMMIT.test(pinned);
      }
      const repo = firstArgument(call, call.name.startsWith('huggingface_hub') ? 'repo_id' : 'path');
      const name = literalString(parsed, repo ?? call.keywords.get('pretrained_model_name_or_path'));
      if (name === undefined) return 'low';
      return !/^(\.{0,2}\/|~)/.test(name) && !LOCAL_BUILDERS.test(name);
    },
  },
  {
    id: 'security/cleartext-protocol',
    needles: ['CommunityData'],
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-319',
    message:
      '`{call}` authenticates with an SNMP v1/v2c community string, sent in cleartext; use SNMPv3 (UsmUserData with authentication and privacy keys).',
    callee: /^pysnmp\.[\w.]*CommunityData$/,
  },
  {
    id: 'security/cleartext-protocol',
    needles: ['UsmUserData'],
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-319',
    message:
      '`{call}` is SNMPv3 without a privacy key (noAuthNoPriv or authNoPriv), so its traffic is in cleartext; give authKey and privKey.',
    callee: /^pysnmp\.[\w.]*UsmUserData$/,
    judge: (call) => argument(call, 2, 'privKey') === undefined,
  },
  {
    // logging.config.listen() takes logging configurations from a socket, and a configuration can name any
    // callable to run (Bandit B612); `verify=` checks (or decrypts) what arrives.
    id: 'security/code-injection-listener',
    needles: ['listen'],
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-94',
    message:
      "`{call}` accepts logging configurations from the network, and a configuration can import and call any code; pass verify= to authenticate them, or don't listen.",
    callee: /^logging\.config\.listen$/,
    judge: (call) => argument(call, 1, 'verify') === undefined,
  },
  {
    id: 'security/wildcard-injection',
    needles: ['*'],
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-155',
    message:
      '`{call}` runs a shell command whose `*` expands to file names, and a file named like an option (`--checkpoint-action=exec=…`, `--reference=…`) becomes one; put `--` before the pattern or use `./*`.',
    callee:
      /^(os\.(system|popen\d?)|commands\.\w+|subprocess\.(getoutput|getstatusoutput|Popen|call|run|check_call|check_output))$/,
    judge: (call, parsed) => {
      const command = literalString(parsed, call.positional[0]);
      return command !== undefined && runsShell(parsed, call) && wildcardInjection(command.split(/\s+/));
    },
  },
];
