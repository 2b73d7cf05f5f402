import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * iOS web views as MobSF and the Semgrep registry's Swift rules report them (CWE-749): `UIWebView`, deprecated since
 * iOS 12, runs JavaScript with no way to turn it off and no isolation between the page and the app (use
 * WKWebView); and a WKWebView whose preferences let page scripts open windows by themselves
 * (`javaScriptCanOpenWindowsAutomatically = true`), which pop-ups and phishing pages use.
 */
export const IOS_WEBVIEW_RULES: RuleDefinition[] = [
  {
    id: 'security/deprecated-webview',
    needles: ['UIWebView'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-749',
    message:
      "`{finding}` creates a UIWebView, which always runs the page's JavaScript and is deprecated; use WKWebView (with JavaScript off unless needed).",
    languages: { swift: callText('call_expression', '^UIWebView\\(') },
  },
  {
    id: 'security/webview-javascript-open-windows',
    needles: ['CanOpenWindowsAutomatically'],
    category: 'security',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-749',
    message:
      '`{finding}` lets page scripts open windows without a user gesture; leave javaScriptCanOpenWindowsAutomatically false.',
    languages: { swift: callText('assignment', '\\.[jJ]avaScriptCanOpenWindowsAutomatically\\s*=\\s*true$') },
  },
];
