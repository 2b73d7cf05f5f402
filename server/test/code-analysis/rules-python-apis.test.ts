/**
 * Python's risky APIs read through the file's imports (rules/python-imports.ts, python-crypto-calls.ts,
 * python-risky-calls.ts): aliases (`import hashlib as h`, `from Crypto.Cipher import DES as d`) resolve to the
 * module's name, each vulnerable example fires its rule, each safe one does not (at min_confidence low), and the
 * confidence says how sure the call alone makes it.
 */
import type { Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import type { RuleCase } from '../helpers/code-analysis';

async function issuesAtLow(code: string): Promise<Finding[]> {
  const r = await analyzeSource({
    code,
    language: 'python',
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  expect(r.parse_errors, `fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

const HASH = 'security/weak-hash';
const CIPHER = 'security/weak-cipher';
const DESER = 'security/unsafe-deserialization-api';

const CASES: RuleCase[] = [
  [HASH, 'python', 'import hashlib as h\nd = h.md5(data)\n', 'import hashlib as h\nd = h.sha256(data)\n'],
  [
    HASH,
    'python',
    'import hashlib\nd = hashlib.sha1(data)\n',
    'import hashlib\nd = hashlib.sha1(data, usedforsecurity=False)\n',
  ],
  [
    HASH,
    'python',
    "import hashlib\nd = hashlib.new(name='MD5', data=b'x')\n",
    "import hashlib\nd = hashlib.new(name='sha512', data=b'x')\n",
  ],
  [
    HASH,
    'python',
    'from Cryptodome.Hash import MD5 as m\nd = m.new()\n',
    'from Cryptodome.Hash import SHA256 as m\nd = m.new()\n',
  ],
  [
    HASH,
    'python',
    'from cryptography.hazmat.primitives import hashes\nh = hashes.Hash(hashes.SHA1())\n',
    'from cryptography.hazmat.primitives import hashes\nh = hashes.Hash(hashes.SHA256())\n',
  ],
  [
    HASH,
    'python',
    'import crypt\nh = crypt.crypt(pw, salt=crypt.METHOD_MD5)\n',
    'import crypt\nh = crypt.crypt(pw, salt=crypt.METHOD_SHA512)\n',
  ],
  [
    CIPHER,
    'python',
    'from Crypto.Cipher import ARC4 as rc4\nc = rc4.new(key)\n',
    'from Crypto.Cipher import AES as aes\nc = aes.new(key, aes.MODE_GCM)\n',
  ],
  [
    CIPHER,
    'python',
    'from Crypto.Cipher import AES\nc = AES.new(key, AES.MODE_ECB)\n',
    'from Crypto.Cipher import AES\nc = AES.new(key, AES.MODE_GCM)\n',
  ],
  [
    CIPHER,
    'python',
    'from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\nc = Cipher(algorithms.TripleDES(key), modes.CBC(iv))\n',
    'from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\nc = Cipher(algorithms.AES(key), modes.CBC(iv))\n',
  ],
  [
    CIPHER,
    'python',
    'from cryptography.hazmat.primitives.ciphers.modes import ECB\nm = ECB()\n',
    'from cryptography.hazmat.primitives.ciphers.modes import GCM\nm = GCM(iv)\n',
  ],
  [
    DESER,
    'python',
    'from pickle import loads as lp\nobj = lp(blob)\n',
    'import json\nobj = json.loads(blob)\n',
  ],
  [
    DESER,
    'python',
    'import jsonpickle\nobj = jsonpickle.unpickler.decode(blob)\n',
    'import jsonpickle\ntext = jsonpickle.encode(obj)\n',
  ],
  [
    DESER,
    'python',
    'import numpy as np\na = np.load(f, allow_pickle=True)\n',
    'import numpy as np\na = np.load(f)\n',
  ],
  [
    'security/insecure-temp-file',
    'python',
    'import tempfile.mktemp as mt\nname = mt()\n',
    'def f(tmp_path_factory):\n    return tmp_path_factory.mktemp("data")\n',
  ],
  [
    'security/xml-entity-expansion',
    'python',
    'import xml.etree.ElementTree as ET\nroot = ET.fromstring(text)\n',
    'import defusedxml.ElementTree as ET\nroot = ET.fromstring(text)\n',
  ],
  [
    'security/xml-external-entities',
    'python',
    'from lxml import etree\ndoc = etree.fromstring(text)\n',
    'from lxml import etree\ndoc = etree.fromstring(text, etree.XMLParser(resolve_entities=False))\n',
  ],
  [
    'security/url-scheme-unchecked',
    'python',
    'import urllib.request\nopener = urllib.request.FancyURLopener()\n',
    "import urllib.request\nr = urllib.request.urlopen('https://example.com/feed')\n",
  ],
  [
    'security/url-scheme-unchecked',
    'python',
    'from urllib.request import urlopen\ndef fetch(url):\n    return urlopen(url).read()\n',
    "from urllib.request import urlopen\ndef fetch():\n    return urlopen('https://example.com/').read()\n",
  ],
  [
    'security/template-autoescape-off',
    'python',
    'from mako.template import Template\nt = Template(text)\n',
    "from mako.template import Template\nt = Template(text, default_filters=['h'])\n",
  ],
  [
    'security/unescaped-markup',
    'python',
    'from markupsafe import Markup\nhtml = Markup(f"<b>{name}</b>")\n',
    'from markupsafe import Markup\nhtml = Markup("<b>{}</b>").format(name)\n',
  ],
  [
    'security/unescaped-markup',
    'python',
    'from django.utils.safestring import mark_safe\nhtml = mark_safe(text)\n',
    'from django.utils.safestring import mark_safe\nfrom django.utils.html import escape\nhtml = mark_safe(escape(text))\n',
  ],
  [
    'security/archive-extraction',
    'python',
    'import tarfile\nwith tarfile.open(path) as tar:\n    tar.extractall(dest)\n',
    "import tarfile\nwith tarfile.open(path) as tar:\n    tar.extractall(dest, filter='data')\n",
  ],
  [
    'security/archive-extraction',
    'python',
    'import tarfile\ntar = tarfile.open(path)\ntar.extractall(dest, members=tar.getmembers())\n',
    'import zipfile\nz = zipfile.ZipFile(path)\nz.extractall(dest)\n',
  ],
  [
    'security/unpinned-model-download',
    'python',
    "from transformers import AutoModel\nm = AutoModel.from_pretrained('org/model', revision='main')\n",
    "from transformers import AutoModel\nm = AutoModel.from_pretrained('org/model', revision='5d0f2e8a7f1b')\n",
  ],
  [
    'security/unpinned-model-download',
    'python',
    "from datasets import load_dataset\nd = load_dataset('org/data')\n",
    "from datasets import load_dataset\nd = load_dataset('csv', data_files='train.csv')\n",
  ],
  [
    'security/cleartext-protocol',
    'python',
    "from pysnmp.hlapi import UsmUserData\nu = UsmUserData('name', 'authkey')\n",
    "from pysnmp.hlapi import UsmUserData\nu = UsmUserData('name', 'authkey', 'privkey')\n",
  ],
  [
    'security/wildcard-injection',
    'python',
    "import os\nos.system('tar czf backup.tgz *')\n",
    "import os\nos.system('tar czf backup.tgz -- *')\n",
  ],
  [
    'security/wildcard-injection',
    'python',
    "import subprocess\nsubprocess.call('chown app *', shell='False')\n",
    "import subprocess\nsubprocess.call(['chown', 'app', '*'])\n",
  ],
  [
    'security/code-injection-listener',
    'python',
    'import logging.config\nt = logging.config.listen(9999)\n',
    'import logging.config\nt = logging.config.listen(9999, verify=check_signature)\n',
  ],
  [
    'security/cleartext-protocol-module',
    'python',
    'from ftplib import FTP, FTP_TLS\nftp = FTP_TLS(host)\n',
    'from ftplib import FTP_TLS\nftp = FTP_TLS(host)\n',
  ],
];

describe('Python risky APIs through imports: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, , vulnerable, safe] of CASES) {
    it(`${rule}: ${vulnerable.split('\n').at(-2)}`, async () => {
      expect((await issuesAtLow(vulnerable)).map((i) => i.rule_id)).toContain(rule);
      expect((await issuesAtLow(safe)).map((i) => i.rule_id)).not.toContain(rule);
    });
  }

  it('reports an aliased call on its line, with its CWE', async () => {
    const issues = await issuesAtLow('import os\nimport hashlib as h\n\nd = h.md5(data)\n');
    expect(issues).toContainEqual(
      expect.objectContaining({ rule_id: HASH, line: 4, cwe: 'CWE-328', confidence: 'high' }),
    );
  });

  it('a name that is not the module is not the module: a local `md5` object is not hashlib', async () => {
    const ids = (await issuesAtLow('d = checksums.md5(data)\nc = cipher_suite.new(key)\n')).map(
      (i) => i.rule_id,
    );
    expect(ids).not.toContain(HASH);
    expect(ids).not.toContain(CIPHER);
  });

  it('deserialisers of bytes in memory are a low audit, however explicit the loader: the dataflow proves what reaches them', async () => {
    const yaml = await issuesAtLow('import yaml\nconf = yaml.load(stream, Loader=yaml.Loader)\n');
    expect(yaml).toContainEqual(expect.objectContaining({ rule_id: DESER, confidence: 'low', line: 2 }));
    const loads = await issuesAtLow('import pickle\nobj = pickle.loads(blob)\n');
    expect(loads).toContainEqual(expect.objectContaining({ rule_id: DESER, confidence: 'low' }));
  });

  it("deserialisers of a file are medium, whatever the path's text: no dataflow follows a file's content", async () => {
    const torch = await issuesAtLow("import torch\nm = torch.load('m.pt', weights_only=False)\n");
    expect(torch).toContainEqual(expect.objectContaining({ rule_id: DESER, confidence: 'medium' }));
    const shelf = await issuesAtLow('import shelve\nwith shelve.open(path) as db:\n    v = db["k"]\n');
    expect(shelf).toEqual([expect.objectContaining({ rule_id: DESER, confidence: 'medium', line: 2 })]);
    const safe = await issuesAtLow("import torch\nm = torch.load('m.pt', weights_only=True)\n");
    expect(safe.map((i) => i.rule_id)).not.toContain(DESER);
  });

  it('markup the dataflow proves is XSS is reported once, by the dataflow', async () => {
    const ids = (
      await issuesAtLow(
        'from flask import request\nfrom markupsafe import Markup\ndef f():\n    return Markup(request.args["q"])\n',
      )
    ).map((i) => i.rule_id);
    expect(ids).toContain('security/xss');
    expect(ids).not.toContain('security/unescaped-markup');
  });
});

describe('Django raw SQL and paramiko commands in the dataflow', () => {
  it('request input in RawSQL, QuerySet.extra and exec_command is reported; bound parameters are not', async () => {
    const issues = await issuesAtLow(
      [
        'from flask import request',
        'from django.db.models.expressions import RawSQL',
        'def view():',
        '    name = request.args.get("name")',
        '    User.objects.filter(a=1).extra(where=["name = \'%s\'" % name])',
        '    User.objects.annotate(val=RawSQL("select %s" % name, []))',
        '    User.objects.annotate(val=RawSQL("select %s", [name]))',
        '    client.exec_command("ls " + name)',
        '',
      ].join('\n'),
    );
    const at = issues.map((i) => `${i.line}:${i.rule_id}`);
    expect(at).toContain('5:security/sql-injection');
    expect(at).toContain('6:security/sql-injection');
    expect(at).not.toContain('7:security/sql-injection');
    expect(at).toContain('8:security/command-injection');
  });
});

describe('PyCrypto imports, PyJWT, flask-cors and pymongo', () => {
  const ids = async (code: string) => (await issuesAtLow(code)).map((i) => `${i.rule_id}:${i.confidence}`);

  it("`Crypto` imports are a low audit (PyCrypto's name, and pycryptodome's); `Cryptodome` is not reported", async () => {
    expect(await ids('from Crypto.Cipher import AES\nimport Crypto.Hash.MD5 as md5\n')).toEqual([
      'security/unmaintained-crypto-library:low',
      'security/unmaintained-crypto-library:low',
    ]);
    expect(await ids('from Cryptodome.Cipher import AES\nimport cryptography\n')).toEqual([]);
  });

  it('PyJWT without signature verification, through a bound options dict or the pre-2.0 verify flag', async () => {
    const jwt = 'security/jwt-signature-not-verified:high';
    expect(
      await ids('import jwt\nOPTS = {"verify_signature": False}\nc = jwt.decode(t, options=OPTS)\n'),
    ).toEqual([jwt]);
    expect(await ids('import jwt\nc = jwt.decode(t, verify=False)\n')).toEqual([jwt]);
    expect(
      await ids('from jose import jwt\nc = jwt.decode(t, k, options={"verify_signature": False})\n'),
    ).toEqual([jwt]);
    expect(
      await ids('import jwt\nc = jwt.decode(t, k, algorithms=["RS256"], options={"verify_aud": False})\n'),
    ).toEqual([]);
  });

  it('flask-cors with credentials and any origin (the default), as a call or a decorator; a listed origin is quiet', async () => {
    const cors = 'security/cors-permissive:high';
    expect(await ids('from flask_cors import CORS\nCORS(app, supports_credentials=True)\n')).toEqual([cors]);
    expect(
      await ids(
        'from flask_cors import cross_origin\n@cross_origin(origins="*", supports_credentials=True)\ndef f():\n    pass\n',
      ),
    ).toEqual([cors]);
    expect(await ids('from flask_cors import CORS\nCORS(app)\n')).toEqual([]);
    expect(
      await ids(
        'from flask_cors import CORS\nCORS(app, origins=["https://a.example"], supports_credentials=True)\n',
      ),
    ).toEqual([]);
    expect(await ids('CORS_ORIGIN_ALLOW_ALL = True\nCORS_ALLOW_CREDENTIALS = False\n')).toEqual([]);
  });

  it("pymongo filters: `$where` built from input and a body taken whole; a string's `find` and a constant `$where` are not", async () => {
    const view = (body: string) =>
      `from flask import request\n@app.route("/x")\ndef x():\n    q = request.args["q"]\n${body}\n`;
    expect(await ids(view('    return db["orders"].find_one({"$where": "this.a == " + q})'))).toContain(
      'security/nosql-injection:high',
    );
    expect(await ids(view('    return str("abc".find(q)) + str(title.find(q))'))).toEqual([]);
    expect(
      await ids(view('    return orders_collection.find({"$where": "this.total > 1", "owner": q})')),
    ).toEqual([]);
  });
});
