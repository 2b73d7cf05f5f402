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
/**
 * Tools, prompts and resources that an MCP server (or an agent framework) offers a model: their arguments are what
 * the model asked for, and whatever the model read (a web page, a document, an issue) can choose them by prompt
 * injection. Functions registered by call (`server.tool(name, schema, async ({ url }) => …)`, the TypeScript SDK),
 * by decorator (`@mcp.tool()`, LangChain's `@tool`, the Agents SDK's `@function_tool`), by attribute or annotation
 * (`[McpServerTool]`, Spring AI's and LangChain4j's `@Tool`) or by the request type they take (mcp-go).
 */
export const MCP_CALLBACKS: { callee: RegExp; parameters: number[] }[] = [
  {
    callee: /(^|\.)\w*(server|mcp)\w*\.(tool|registerTool|prompt|registerPrompt|resource|registerResource)$/i,
    parameters: [0, 1],
  },
  { callee: /\.setRequestHandler$/, parameters: [0] },
];
export const MCP_DECORATED: ParameterSource = {
  decorator: /@(\w+\.)*(tool|call_tool|read_resource|get_prompt|resource|prompt)\b(?![.=])|@function_tool\b/,
};
export const MCP_ANNOTATED: ParameterSource = {
  decorator: /\[McpServer(Tool|Prompt|Resource)\b|@(Tool|McpTool|McpPrompt|McpResource)\b/,
};
export const mainArgs: ParameterSource = { name: /^(args|argv)$/, function: /^main$/ };

export const JVM_REQUEST_CALLS =
  /\.(getParameter|getParameterValues|getHeader|getQueryString|getCookies|getInputStream|getReader)$/;
/** Spring, JAX-RS: annotations that bind a parameter to the request. */
export const JVM_BINDINGS =
  /@(RequestParam|PathVariable|RequestBody|RequestHeader|CookieValue|QueryParam|PathParam|FormParam|HeaderParam|CookieParam)\b/;

/** JVM calls that load a native library by name or path (`System.loadLibrary(name)`, `Runtime.getRuntime().load(path)`). */
export const NATIVE_LIBRARY_LOAD = /\.loadLibrary$|^System\.load$|^Runtime(\.getRuntime\(\))?\.load$/;
