/**
 * What well-known methods do to the data they touch, by method name, for every language: the models the dataflow
 * applies when a call is neither a source, a sanitiser nor a function of the file.
 */

/** Results that carry no data of their receiver or arguments (sizes, booleans, comparisons, hashes). */
export const CLEAN_METHODS = new Set([
  'length',
  'size',
  'len',
  'count',
  'equals',
  'equalsIgnoreCase',
  'isEmpty',
  'isBlank',
  'contains',
  'containsKey',
  'containsValue',
  'startsWith',
  'endsWith',
  'startswith',
  'endswith',
  'indexOf',
  'lastIndexOf',
  'find',
  'rfind',
  'hashCode',
  'compareTo',
  'compareToIgnoreCase',
  'matches',
  'hasNext',
  'hasMoreElements',
  'hasMoreTokens',
  'isdigit',
  'isalpha',
  'isalnum',
  'isnumeric',
  'exists',
  'isFile',
  'isDirectory',
  'getClass',
  'isinstance',
  'hasattr',
  'callable',
  'id',
  'type',
  // PHP's built-ins that answer a yes/no or a size about their argument (`echo "…" . isset($_POST['x'])`).
  'isset',
  'empty',
  'strlen',
  'mb_strlen',
  'sizeof',
  'strpos',
  'stripos',
  'strrpos',
  'in_array',
  'array_key_exists',
  'is_numeric',
  'is_int',
  'is_string',
  'is_array',
  'is_bool',
  'ctype_digit',
  'ctype_alpha',
  'ctype_alnum',
  'preg_match',
  'file_exists',
  'is_file',
  'is_dir',
]);

/** Methods that write their arguments into the receiver (builders, collections): the receiver becomes tainted. */
export const MUTATORS = new Set([
  'append',
  'insert',
  'add',
  'addAll',
  'addElement',
  'push',
  'offer',
  'put',
  'putAll',
  'putIfAbsent',
  'set',
  'setdefault',
  'extend',
  'update',
  // C#'s collections (`args.Add(cmd)`, `AddRange`). String `concat`/`prepend` are per language (FlowSyntax.concat).
  'Add',
  'AddRange',
  // Buffers (StringIO, StringWriter, ByteArrayOutputStream) hold what is written into them.
  'write',
  'writelines',
]);

/** Collection writes and reads the dataflow models exactly (by constant key or index). */
export const COLLECTION_PUT = new Set([
  'put',
  'putIfAbsent',
  'setdefault',
  '__setitem__',
  'set',
  'setProperty',
]);
export const COLLECTION_ADD = new Set(['add', 'append', 'addElement', 'push', 'offer', 'addLast']);
export const COLLECTION_INSERT = new Set(['insert', 'addFirst']);
export const COLLECTION_GET = new Set(['get', 'getOrDefault', 'elementAt', 'pop', 'remove', 'removeAt']);
export const COLLECTION_CLEAR = new Set(['clear']);
