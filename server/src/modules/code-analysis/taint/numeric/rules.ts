import type { NumericKind, TaintRuleMeta } from '../types';

/** Metadata of the numeric sinks (taint/numeric/): a number from input or chance used without a range check. */
export const NUMERIC_RULES: Record<NumericKind, TaintRuleMeta> = {
  'integer-overflow': {
    cwe: 'CWE-190',
    severity: 'medium',
    title: 'Integer overflow',
    fix: "check the value against the type's limit before the operation (`if (n < Integer.MAX_VALUE - k)`), or use checked arithmetic (Math.addExact, checked_add)",
  },
  'integer-underflow': {
    cwe: 'CWE-191',
    severity: 'medium',
    title: 'Integer underflow',
    fix: "check the value against the type's minimum before the operation (`if (n > Integer.MIN_VALUE + k)`), or use checked arithmetic (Math.subtractExact)",
  },
  'divide-by-zero': {
    cwe: 'CWE-369',
    severity: 'medium',
    title: 'Division by zero',
    fix: 'check that the divisor is not zero (for floating point, that its magnitude is above a small epsilon) before dividing',
  },
  'array-index': {
    cwe: 'CWE-129',
    severity: 'medium',
    title: 'Array index from input without a bounds check',
    fix: 'check `0 <= i && i < array.length` before indexing',
  },
  'numeric-truncation': {
    cwe: 'CWE-197',
    severity: 'low',
    title: 'Numeric truncation',
    fix: 'check that the value fits the narrower type (between its MIN_VALUE and MAX_VALUE) before the cast',
  },
  'numeric-conversion': {
    cwe: 'CWE-681',
    severity: 'low',
    title: 'Incorrect conversion between numeric types',
    fix: "check that the floating-point value is finite and within the target type's range before converting",
  },
  'unchecked-loop-condition': {
    cwe: 'CWE-606',
    severity: 'medium',
    title: 'Loop bound from input',
    fix: 'cap the number of iterations (`if (n > 0 && n <= MAX_ITEMS)`) before the loop',
  },
  'resource-exhaustion': {
    cwe: 'CWE-400',
    severity: 'medium',
    title: 'Uncontrolled resource consumption',
    fix: 'cap the delay or amount to a fixed maximum before using it',
  },
  'uncontrolled-allocation': {
    cwe: 'CWE-789',
    severity: 'medium',
    title: 'Allocation size from input',
    fix: 'cap the requested size or capacity to a fixed maximum before allocating',
  },
};
