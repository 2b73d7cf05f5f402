import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * Mass assignment (CWE-915): a model built or updated from the whole request, so a client can set fields it should
 * not (`is_admin`, `role`, `owner_id`), as Brakeman, Semgrep and the Laravel/Django guidance report it: Rails
 * `params.permit!` and models given `params[:x]` without strong parameters, Django `ModelForm`/serializer
 * `fields = '__all__'` and `Model(**request.POST)`, Laravel `$guarded = []` and `create($request->all())`,
 * Mongoose/Sequelize models and `Object.assign` given `req.body`, ASP.NET MVC `TryUpdateModelAsync(entity)` without
 * the properties to bind. Permitted parameters (`user_params`, `params.require(:user).permit(:name)`,
 * `$request->only(...)`, `$request->validated()`) are not reported. Spring handlers that save the object bound from
 * the body (`@RequestBody User u` … `repo.save(u)`) are.
 */
const RUBY_MODEL_CALL =
  '^(new|create|create!|create_with|update|update!|update_attributes|update_attributes!|assign_attributes|attributes=|insert|upsert|build|first_or_create|find_or_create_by|where)$';
const JS_MODEL_CALL =
  '^(assign|create|update|updateOne|updateMany|findByIdAndUpdate|findOneAndUpdate|insertMany|insert|set|merge|build|upsert|save)$';
const JS_BODY = '^(req|request|ctx\\.request)\\.body$';

/** Types named as transfer objects are copied from, not saved. */
const TRANSFER_TYPE =
  /(Dto|DTO|Request|Form|Command|Input|Payload|Params|Resource|View|Event|Message)$|^(String|Object|JsonNode)$/;

/** The body hands the bound parameter itself to a repository, DAO or entity manager that stores it. */
function savedAsBound(type: string, param: string, body: string): boolean {
  if (!param || TRANSFER_TYPE.test(type)) return false;
  const store = new RegExp(
    `\\b\\w*([Rr]epository|[Rr]epo|[Dd]ao|[Ee]ntityManager|em|[Ss]ession|[Tt]emplate)\\.(save|saveAndFlush|persist|merge|insert|update|saveOrUpdate)\\(\\s*${param}\\s*\\)`,
  );
  return store.test(body);
}

export const MASS_ASSIGNMENT_RULES: RuleDefinition[] = [
  {
    id: 'security/mass-assignment',
    needles: [
      'permit!',
      'params',
      '__all__',
      'guarded',
      '->all()',
      '.body',
      'request.POST',
      'request.data',
      'request.GET',
      'RequestBody',
      'ModelAttribute',
      'UpdateModel',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-915',
    message:
      '`{finding}` lets the request set any attribute of the model (mass assignment): a client can change fields such as role or owner; list the fields it may set (strong parameters, `fields = [...]`, `$fillable`, a DTO).',
    languages: {
      ruby: `((call receiver: (_) @r method: (identifier) @m) @finding (#match? @r "^params([.[]|$)") (#eq? @m "permit!"))
             ((call method: (identifier) @m arguments: (argument_list . [(element_reference object: (identifier) @p) (identifier) @p])) @finding
               (#match? @m "${RUBY_MODEL_CALL}") (#eq? @p "params"))`,
      python: `((class_definition name: (identifier) @meta body: (block (expression_statement (assignment left: (identifier) @k right: (string) @v) @finding)))
                 (#eq? @meta "Meta") (#eq? @k "fields") (#match? @v "^[\\"']__all__[\\"']$"))
               ((call arguments: (argument_list (dictionary_splat [(attribute) (call)] @s))) @finding
                 (#match? @s "^request\\\\.(POST|GET|data|json|form|args|values)(\\\\.dict\\\\(\\\\)|\\\\.to_dict\\\\(\\\\))?$"))`,
      php: `((property_element name: (variable_name (name) @n) default_value: (array_creation_expression) @v) @finding (#eq? @n "guarded") (#match? @v "^\\\\[\\\\s*\\\\]$"))
            ${callText('scoped_call_expression', '^\\w+::(create|forceCreate|insert|update|firstOrCreate|updateOrCreate|make)\\(\\s*\\$request->all\\(\\)')}
            ${callText('member_call_expression', '->(create|forceCreate|update|fill|forceFill|insert|firstOrCreate|updateOrCreate|make)\\(\\s*\\$request->all\\(\\)')}`,
      // ASP.NET MVC's `TryUpdateModelAsync(entity)` with no list of properties binds every posted field (overposting).
      csharp: `((invocation_expression function: [(identifier) (generic_name)] @fn arguments: (argument_list . (argument) .)) @finding
                 (#match? @fn "^(TryUpdateModel|TryUpdateModelAsync|UpdateModel)(<|$)"))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments (member_expression) @b)) @finding
                   (#match? @m "${JS_MODEL_CALL}") (#match? @b "${JS_BODY}"))
                 ((new_expression constructor: (identifier) @c arguments: (arguments . (member_expression) @b .)) @finding
                   (#match? @c "^[A-Z]") (#match? @b "${JS_BODY}"))`),
      // SonarSource S4684: a Spring handler binding the request to an object it then saves as is: the object is a
      // persistent entity, and the client sets every field of it (a DTO copied field by field is not reported).
      java: `((method_declaration parameters: (formal_parameters (formal_parameter (modifiers [(marker_annotation name: (identifier) @pa) (annotation name: (identifier) @pa)]) type: (type_identifier) @t name: (identifier) @p) @finding) body: (block) @body)
               (#match? @pa "^(RequestBody|ModelAttribute)$"))`,
    },
    check: (c) => {
      if (c.body) return savedAsBound(c.t?.text ?? '', c.p?.text ?? '', c.body.text);
      // Standard-library constructors given a parameter build values, not models (`Regexp.new(params[:q])`).
      return !/^(Regexp|String|Array|Hash|Set|URI|Struct|OpenStruct|Time|Date|DateTime|Integer|Float|BigDecimal|File|Pathname|IO|StringIO|Logger|ERB)\.new\b/.test(
        c.finding?.text ?? '',
      );
    },
  },
];
