/**
 * Scoped rules about what code does with objects it creates: cryptographic steps and fixed inputs, temporary files,
 * native code, secrets left in buffers. Each vulnerable example fires its rule (with its CWE, on the expected
 * line), the fixed one does not.
 */
import { describe, it } from 'vitest';
import { expectPlacedCase, javaClass, type PlacedCase, SERVLET_PARAMS } from '../helpers/code-analysis';

const java = javaClass('Vault');
const servlet = (body: string) => java(body, '', SERVLET_PARAMS);

const CASES: PlacedCase[] = [
  [
    'security/missing-crypto-step',
    'CWE-325',
    'java',
    java(
      'javax.crypto.KeyGenerator kg = javax.crypto.KeyGenerator.getInstance("AES");\n    use(kg.generateKey());',
    ),
    4,
    java(
      'javax.crypto.KeyGenerator kg = javax.crypto.KeyGenerator.getInstance("AES");\n    kg.init(256);\n    use(kg.generateKey());',
    ),
  ],
  [
    'security/missing-crypto-step',
    'CWE-325',
    'java',
    java('MessageDigest md = MessageDigest.getInstance("SHA-256");\n    use(md.digest());'),
    4,
    java(
      'MessageDigest md = MessageDigest.getInstance("SHA-256");\n    md.update(data());\n    use(md.digest());',
    ),
  ],
  [
    'security/static-iv',
    'CWE-329',
    'java',
    java('byte[] iv = new byte[16];\n    cipher.init(1, key, new IvParameterSpec(iv));'),
    5,
    java(
      'byte[] iv = new byte[16];\n    new java.security.SecureRandom().nextBytes(iv);\n    cipher.init(1, key, new IvParameterSpec(iv));',
    ),
  ],
  [
    'security/fixed-seed-bytes',
    'CWE-336',
    'java',
    java(
      'final byte[] seed = {0x01, 0x02, 0x03};\n    java.security.SecureRandom r = new java.security.SecureRandom();\n    r.setSeed(seed);',
    ),
    6,
    java(
      'byte[] seed = new byte[8];\n    readFully(seed);\n    java.security.SecureRandom r = new java.security.SecureRandom();\n    r.setSeed(seed);',
    ),
  ],
  [
    'security/predictable-salt',
    'CWE-760',
    'java',
    java(
      'java.util.Random random = new java.util.Random();\n    MessageDigest md = MessageDigest.getInstance("SHA-512");\n    md.update(Integer.toString(random.nextInt()).getBytes());',
    ),
    6,
    java(
      'java.security.SecureRandom random = new java.security.SecureRandom();\n    MessageDigest md = MessageDigest.getInstance("SHA-512");\n    md.update(Integer.toString(random.nextInt()).getBytes());',
    ),
  ],
  [
    'security/temp-file-permissions',
    'CWE-378',
    'java',
    java('java.io.File f = java.io.File.createTempFile("report", ".csv");\n    write(f);\n    f.delete();'),
    4,
    java(
      'java.io.File f = java.io.File.createTempFile("report", ".csv");\n    f.setReadable(true, true);\n    f.setWritable(true, true);\n    write(f);\n    f.delete();',
    ),
  ],
  [
    'security/temp-file-insecure-directory',
    'CWE-379',
    'java',
    java(
      'java.io.File dir = new java.io.File("/srv/work");\n    dir.mkdir();\n    java.io.File f = java.io.File.createTempFile("a", "b", dir);\n    f.setReadable(true, true);\n    f.delete();',
    ),
    6,
    java(
      'java.io.File dir = new java.io.File("/srv/work");\n    dir.setReadable(true, true);\n    dir.mkdir();\n    java.io.File f = java.io.File.createTempFile("a", "b", dir);\n    f.setReadable(true, true);\n    f.delete();',
    ),
  ],
  [
    'bug/temp-file-not-deleted',
    'CWE-459',
    'java',
    java(
      'java.io.File f = java.io.File.createTempFile("a", "b");\n    f.setReadable(true, true);\n    log(f.getName());',
    ),
    4,
    java(
      'java.io.File f = java.io.File.createTempFile("a", "b");\n    f.setReadable(true, true);\n    log(f.getName());\n    f.delete();',
    ),
  ],
  [
    'bug/temp-file-not-deleted',
    'CWE-459',
    'java',
    servlet(
      'java.io.File f = java.io.File.createTempFile("a", "b");\n    f.deleteOnExit();\n    f.setReadable(true, true);',
    ),
    4,
    java(
      'java.io.File f = java.io.File.createTempFile("a", "b");\n    f.deleteOnExit();\n    f.setReadable(true, true);',
    ),
  ],
  [
    'security/native-method-call',
    'CWE-111',
    'java',
    java('String s = checksum(data(), 64);', 'native String checksum(byte[] b, int len);'),
    4,
    java('String s = checksum(data(), 64);', 'String checksum(byte[] b, int len) { return ""; }'),
  ],
  [
    'security/library-search-path',
    'CWE-114',
    'java',
    java('System.loadLibrary("codec");'),
    4,
    java('System.load("/opt/app/lib/libcodec.so");'),
  ],
  [
    'security/library-search-path',
    'CWE-114',
    'c',
    'void init(void) {\n  HMODULE h = LoadLibraryA("codec.dll");\n}\n',
    2,
    'void init(void) {\n  HMODULE h = LoadLibraryA("C:\\\\Program Files\\\\App\\\\codec.dll");\n}\n',
  ],
  [
    'security/secret-buffer-not-cleared',
    'CWE-226',
    'java',
    java(
      'StringBuilder password = new StringBuilder();\n    password.append(readLine());\n    login(password.toString());',
    ),
    4,
    java(
      'StringBuilder password = new StringBuilder();\n    try {\n      password.append(readLine());\n      login(password.toString());\n    } finally {\n      password.setLength(0);\n    }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'java',
    java(
      'java.io.BufferedReader in = new java.io.BufferedReader(new java.io.FileReader(path()));\n    log(in.readLine());',
    ),
    4,
    java(
      'try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.FileReader(path()))) {\n      log(in.readLine());\n    }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-772',
    'java',
    java('java.sql.PreparedStatement ps = connection.prepareStatement("select 1");\n    ps.execute();'),
    4,
    java(
      'java.sql.PreparedStatement ps = connection.prepareStatement("select 1");\n    try {\n      ps.execute();\n    } finally {\n      ps.close();\n    }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-404',
    'java',
    java(
      'java.io.FileReader r = new java.io.FileReader(path());\n    java.io.BufferedReader in = new java.io.BufferedReader(r);\n    log(in.readLine());\n    in.close();',
    ),
    4,
    java(
      'java.io.FileReader r = null;\n    try {\n      r = new java.io.FileReader(path());\n      java.io.BufferedReader in = new java.io.BufferedReader(r);\n      log(in.readLine());\n    } finally {\n      if (r != null) r.close();\n    }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'java',
    java('java.io.FileInputStream in = new java.io.FileInputStream(path());\n    log(in.read());'),
    4,
    java(
      'java.io.FileInputStream in = new java.io.FileInputStream(path());\n    this.stream = in;',
      'java.io.InputStream stream;',
    ),
  ],
];

describe('scoped rules about created objects', () => {
  it.each(CASES)('%s (%s) in %s', (...placed) => expectPlacedCase(...placed));
});
