import type { RuleDefinition } from './types';

/**
 * Android platform settings the field's mobile rule sets report (MobSF, the Semgrep registry's Kotlin/Java
 * Android rules, CodeQL `java/android/*`): a JavaScript bridge on a WebView that runs JavaScript (CWE-749: any page
 * it loads calls the app's methods), WebViews letting `file://` pages read other files or origins (CWE-200), and
 * files or preferences created world-readable or world-writable (CWE-732).
 */
const FILE_ACCESS = '^(allowUniversalAccessFromFileURLs|allowFileAccessFromFileURLs)$';
const FILE_ACCESS_SETTER = '^set(AllowUniversalAccessFromFileURLs|AllowFileAccessFromFileURLs)$';
const WORLD_MODE = '^MODE_WORLD_(READABLE|WRITEABLE)$';
export const ANDROID_RULES: RuleDefinition[] = [
  {
    id: 'security/webview-javascript-interface',
    needles: ['addJavascriptInterface'],
    // Only where the file turns JavaScript on: without it the bridge cannot be called.
    needlesByLanguage: {
      kotlin: ['javaScriptEnabled = true', 'setJavaScriptEnabled(true)'],
      java: ['setJavaScriptEnabled(true)'],
    },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-749',
    message:
      '`{finding}` exposes app methods to every page the JavaScript-enabled WebView loads; load only your own content, or drop the bridge and use postWebMessage.',
    languages: {
      kotlin: `((call_expression (navigation_expression (navigation_suffix (simple_identifier) @m))) @finding (#eq? @m "addJavascriptInterface"))`,
      java: `((method_invocation name: (identifier) @m) @finding (#eq? @m "addJavascriptInterface"))`,
    },
  },
  {
    id: 'security/webview-file-access',
    needles: ['FromFileURLs'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-200',
    message:
      '`{finding}` lets a `file://` page in the WebView read other files and origins; leave it false (the default) and serve local content through WebViewAssetLoader.',
    languages: {
      kotlin: `((assignment (directly_assignable_expression (navigation_suffix (simple_identifier) @p)) (boolean_literal) @v) @finding (#match? @p "${FILE_ACCESS}") (#eq? @v "true"))
        ((call_expression (navigation_expression (navigation_suffix (simple_identifier) @m)) (call_suffix (value_arguments (value_argument (boolean_literal) @v)))) @finding (#match? @m "${FILE_ACCESS_SETTER}") (#eq? @v "true"))`,
      java: `((method_invocation name: (identifier) @m arguments: (argument_list (true))) @finding (#match? @m "${FILE_ACCESS_SETTER}"))`,
      // WKWebView has no public switch: apps set the private preference by key.
      swift: `((call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument value: (boolean_literal) @v) . (value_argument name: (value_argument_label) value: (line_string_literal) @k)))) @finding
        (#eq? @m "setValue") (#eq? @v "true") (#match? @k "FromFileURLs"))`,
    },
  },
  {
    id: 'security/world-accessible-file',
    needles: ['MODE_WORLD_'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-732',
    message:
      '`{finding}` lets every app on the device read or write the file; use MODE_PRIVATE and share through a FileProvider.',
    languages: {
      kotlin: `((simple_identifier) @finding (#match? @finding "${WORLD_MODE}"))`,
      java: `((identifier) @finding (#match? @finding "${WORLD_MODE}"))`,
    },
  },
  {
    // MobSF, CodeQL java/android/webview-debugging-enabled: remote debugging lets anyone with USB access (or adb over
    // the network) inspect and script every page the app's WebViews load.
    id: 'security/webview-debugging',
    needles: ['setWebContentsDebuggingEnabled'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-489',
    message:
      '`{finding}` turns on remote debugging of the WebViews in release builds; enable it only for debug builds (`BuildConfig.DEBUG`).',
    languages: {
      kotlin: `((call_expression (navigation_expression (navigation_suffix (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument (boolean_literal) @v) .))) @finding (#eq? @m "setWebContentsDebuggingEnabled") (#eq? @v "true"))`,
      java: `((method_invocation name: (identifier) @m arguments: (argument_list . (true) .)) @finding (#eq? @m "setWebContentsDebuggingEnabled"))`,
    },
  },
];
