import type { ParameterSource } from '../types';

/** Sources several languages' catalogues share. */

/** Parameter names that say the value is request or user input, in every language. */
export const INPUT_NAMES =
  /^\$?(params|query|queryParams|query_params|body|requestBody|request_body|form|formData|form_data|payload|input|userInput|user_input)$/;

export const namedInput: ParameterSource = { name: INPUT_NAMES };
/**
 * The event of an AWS Lambda handler (`def lambda_handler(event, context)`, `exports.handler = async (event) =>`):
 * what API Gateway, SQS, S3 or a caller sends, as untrusted as a request.
 */
export const lambdaEvent: ParameterSource = {
  name: /^event$/,
  function: /^(handler|lambda_handler|lambdaHandler|\w+_lambda_handler|\w+LambdaHandler|main_handler)$/,
};
export const mainArgs: ParameterSource = { name: /^(args|argv)$/, function: /^main$/ };

export const JVM_REQUEST_CALLS =
  /\.(getParameter|getParameterValues|getHeader|getQueryString|getCookies|getInputStream|getReader)$/;
/** Spring, JAX-RS: annotations that bind a parameter to the request. */
export const JVM_BINDINGS =
  /@(RequestParam|PathVariable|RequestBody|RequestHeader|CookieValue|QueryParam|PathParam|FormParam|HeaderParam|CookieParam)\b/;
