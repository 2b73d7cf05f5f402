import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * JVM deserialisers that build whatever classes the data names (CWE-502), reported wherever the code reads with them,
 * as Semgrep's object-deserialization / xmldecoder / xstream rules and FindSecBugs OBJECT_DESERIALIZATION do: where
 * the stream comes from (a socket, an upload, a file a user can replace) is rarely visible in the function, and no
 * use of them is safe once it is attacker-touched. Medium confidence, like Python's `pickle.load` of a file; the
 * dataflow's finding on the same line (input proven to reach it) takes precedence (`yieldsTo`).
 * Safe forms: a file that installs an `ObjectInputFilter` (JEP 290), overrides `resolveClass` with an allow-list or
 * uses commons-io's `ValidatingObjectInputStream`; an XStream allow-list (`allowTypes…`, `addPermission`,
 * `setupDefaultSecurity`).
 */
const created = (name: string) => ({
  java: callText('object_creation_expression', `^new\\s+([\\w.]+\\.)?${name}\\(`),
  kotlin: callText('call_expression', `^([\\w.]+\\.)?${name}\\(`),
  scala: callText('instance_expression', `^new\\s+([\\w.]+\\.)?${name}\\b`),
});

const FILTERED = ['ObjectInputFilter', 'resolveClass', 'ValidatingObjectInputStream', 'SerialKiller'];
const XSTREAM_ALLOW_LIST = ['allowTypes', 'addPermission', 'setupDefaultSecurity'];

export const JVM_DESERIALIZATION_RULES: RuleDefinition[] = [
  {
    id: 'security/object-deserialization',
    needles: ['ObjectInputStream'],
    unlessByLanguage: { java: FILTERED, kotlin: FILTERED, scala: FILTERED },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    yieldsTo: 'security/unsafe-deserialization',
    message:
      '`{finding}` will create any Serializable class the stream names, which runs gadget chains; read a data format (JSON into fixed types) or install an ObjectInputFilter allowing only your classes.',
    languages: created('ObjectInputStream'),
  },
  {
    id: 'security/xml-decoder',
    needles: ['XMLDecoder'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    yieldsTo: 'security/unsafe-deserialization',
    message:
      '`{finding}` runs the method calls the XML describes (any class, any method); never decode XML that is not your own, use JAXB or Jackson into fixed types.',
    languages: created('XMLDecoder'),
  },
  {
    id: 'security/xstream-without-allow-list',
    needles: ['fromXML'],
    unlessByLanguage: { java: XSTREAM_ALLOW_LIST, kotlin: XSTREAM_ALLOW_LIST, scala: XSTREAM_ALLOW_LIST },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    yieldsTo: 'security/unsafe-deserialization',
    message:
      '`{finding}` lets the XML name the classes XStream creates; set up its security framework with an allow-list (xstream.allowTypes(…) / addPermission) before reading.',
    languages: {
      java: `((method_invocation name: (identifier) @m) @finding (#eq? @m "fromXML"))`,
      kotlin: callText('call_expression', '\\.fromXML\\('),
      scala: callText('call_expression', '\\.fromXML\\('),
    },
  },
  {
    // JMS: an ObjectMessage's payload is Java serialisation from whoever can post to the queue (Semgrep's
    // insecure-jms-deserialization, FindSecBugs JMS_OBJECT_MESSAGE).
    id: 'security/jms-object-message',
    needles: ['ObjectMessage'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    yieldsTo: 'security/unsafe-deserialization',
    message:
      '`{finding}` deserialises whatever class the message carries; send text or bytes (JSON) instead of ObjectMessage, or restrict the trusted packages of the connection factory.',
    languages: {
      java: `((method_invocation name: (identifier) @m arguments: (argument_list)) @finding (#eq? @m "getObject"))`,
      kotlin: callText('call_expression', '\\.getObject\\(\\)$'),
    },
  },
  {
    // SnakeYAML 1.x: `new Yaml()` builds any class a `!!java…` tag names (Semgrep's use-snakeyaml-constructor);
    // `new Yaml(new SafeConstructor(…))` does not.
    id: 'security/snakeyaml-unsafe-constructor',
    needles: ['Yaml'],
    unlessByLanguage: { java: ['SafeConstructor'], kotlin: ['SafeConstructor'], scala: ['SafeConstructor'] },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    yieldsTo: 'security/unsafe-deserialization',
    message:
      '`{finding}` lets YAML tags name Java classes to create (SnakeYAML 1.x); pass a SafeConstructor (new Yaml(new SafeConstructor(new LoaderOptions()))) or upgrade to 2.x.',
    languages: {
      java: `((object_creation_expression type: (type_identifier) @t arguments: (argument_list)) @finding (#eq? @t "Yaml"))`,
      kotlin: callText('call_expression', '^Yaml\\(\\)$'),
      scala: callText('instance_expression', '^new\\s+Yaml(\\(\\))?$'),
    },
  },
];
