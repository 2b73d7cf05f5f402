import type { RuleDefinition } from './types';

/**
 * .NET settings that SecurityCodeScan and the Roslyn security analyzers report: Json.NET told to read type names
 * from the payload (CWE-502, `TypeNameHandling` other than `None`: the payload picks a class to instantiate,
 * SCS0028/CA2326), ASP.NET request validation turned off for an action (`[ValidateInput(false)]`, CWE-20,
 * SCS0017; `[AllowHtml]` does it for one model property), the developer exception page served outside development (CWE-489) and an exception's stack trace
 * written to the response (CWE-209, CodeQL cs/information-exposure-through-exception).
 */
const RESPONSE_CALL =
  '^(StatusCode|Content|BadRequest|Ok|Problem|Json|NotFound|Conflict|UnprocessableEntity|(HttpContext\\.|context\\.)?Response\\.(Write|WriteAsync))$';
const EXCEPTION_TEXT = `[(invocation_expression function: (member_access_expression expression: (identifier) @r name: (identifier) @m) arguments: (argument_list))
                         (member_access_expression expression: (identifier) @r name: (identifier) @m)] @finding`;
const RESPONSE_WITH_EXCEPTION = `(invocation_expression function: [(identifier) (member_access_expression)] @fn arguments: (argument_list (argument ${EXCEPTION_TEXT})))`;
const DEV_PAGE = `(invocation_expression function: (member_access_expression name: (identifier) @m) (#eq? @m "UseDeveloperExceptionPage")) @finding`;

export const DOTNET_CONFIG_RULES: RuleDefinition[] = [
  {
    id: 'security/json-type-name-handling',
    needles: ['TypeNameHandling'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    message:
      '`{finding}` lets the JSON payload name the .NET type to create, which runs gadget code; keep TypeNameHandling.None or bind a SerializationBinder that allows only your types.',
    languages: {
      csharp: `((assignment_expression left: (_) @p right: (member_access_expression expression: (identifier) @t name: (identifier) @v)) @finding
        (#match? @p "TypeNameHandling$") (#eq? @t "TypeNameHandling") (#match? @v "^(All|Objects|Arrays|Auto)$"))`,
    },
  },
  {
    // The Semgrep registry's .NET deserialization rules: JavaScriptSerializer with a type resolver (its only constructor
    // argument, given inline or as a variable) reads `__type` from the payload; .NET Remoting with TypeFilterLevel.Full deserializes any type sent to the channel; a custom
    // DataContractResolver maps names in the payload to types (Semgrep's data-contract-resolver).
    id: 'security/deserializer-type-resolution',
    needles: ['SimpleTypeResolver', 'JavaScriptSerializer', 'TypeFilterLevel', 'DataContractResolver'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    message:
      '`{finding}` lets the serialized data choose the .NET type to create, which runs gadget code; drop the type resolver (or use System.Text.Json) and keep TypeFilterLevel.Low.',
    languages: {
      csharp: `((object_creation_expression type: (identifier) @t arguments: (argument_list (argument (object_creation_expression type: (identifier) @r)))) @finding
          (#eq? @t "JavaScriptSerializer") (#eq? @r "SimpleTypeResolver"))
        ((object_creation_expression type: (identifier) @t arguments: (argument_list . (argument (identifier)) .)) @finding
          (#eq? @t "JavaScriptSerializer"))
        ((assignment_expression left: (_) @p right: (member_access_expression expression: (identifier) @e name: (identifier) @v)) @finding
          (#match? @p "TypeFilterLevel$") (#eq? @e "TypeFilterLevel") (#eq? @v "Full"))
        ((class_declaration name: (identifier) @finding (base_list (identifier) @b)) (#eq? @b "DataContractResolver"))`,
    },
  },
  {
    // Roslyn CA2300/CA2305/CA2310/CA2315 and SYSLIB0011, Semgrep's insecure-*-deserialization: these formatters
    // create whatever type the stream names, so no use of them is safe with data an attacker can touch.
    id: 'security/insecure-deserializer',
    needles: [
      'BinaryFormatter',
      'SoapFormatter',
      'NetDataContractSerializer',
      'LosFormatter',
      'ObjectStateFormatter',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    message:
      '`{finding}` deserializes any type the data names, which runs gadget code; use System.Text.Json or DataContractSerializer with known types.',
    languages: {
      csharp: `((object_creation_expression type: [(identifier) (qualified_name)] @t) @finding
          (#match? @t "(^|\\.)(BinaryFormatter|SoapFormatter|NetDataContractSerializer|LosFormatter|ObjectStateFormatter)$"))`,
    },
  },
  {
    id: 'security/request-validation-disabled',
    needles: ['ValidateInput', 'AllowHtml'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-20',
    message:
      '`{finding}` turns off ASP.NET request validation for the action; keep it on and encode what the action writes back.',
    languages: {
      csharp: `((attribute name: (identifier) @n (attribute_argument_list (attribute_argument (boolean_literal) @v))) @finding (#eq? @n "ValidateInput") (#eq? @v "false"))
        ((attribute name: (identifier) @n) @finding (#eq? @n "AllowHtml"))`,
    },
  },
  {
    // Outside an `if (env.IsDevelopment())`: a top-level statement of Program.cs, or a statement of Configure's body.
    id: 'security/developer-exception-page',
    needles: ['UseDeveloperExceptionPage'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-489',
    message:
      '`{finding}` shows stack traces, source lines and request details to every client, in production too; call it only `if (app.Environment.IsDevelopment())` and use UseExceptionHandler otherwise.',
    languages: {
      csharp: `(global_statement (expression_statement ${DEV_PAGE}))
               (method_declaration body: (block (expression_statement ${DEV_PAGE})))`,
    },
  },
  {
    id: 'security/exception-details-in-response',
    needles: ['catch'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-209',
    message:
      '`{finding}` sends the exception with its stack trace to the client, which shows class names, paths and queries; log it and return a generic message.',
    languages: {
      csharp: `(catch_clause (catch_declaration name: (identifier) @ex) body: (block [
                 (return_statement ${RESPONSE_WITH_EXCEPTION})
                 (return_statement (object_creation_expression arguments: (argument_list (argument ${EXCEPTION_TEXT}))))
                 (expression_statement ${RESPONSE_WITH_EXCEPTION})
                 (expression_statement (await_expression ${RESPONSE_WITH_EXCEPTION}))]))`,
    },
    check: (c) =>
      c.r?.text === c.ex?.text &&
      /^(ToString|StackTrace)$/.test(c.m?.text ?? '') &&
      (c.fn === undefined || new RegExp(RESPONSE_CALL).test(c.fn.text.replace(/\s+/g, ''))),
  },
];
