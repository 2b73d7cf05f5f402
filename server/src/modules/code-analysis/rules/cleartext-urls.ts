import { cleartextUrl } from './security-web';

/**
 * At a client call the request is made whatever the host's name, so names reserved for documentation
 * (`api.example.com`) count here, unlike in a bare literal; this machine, private networks and XML namespaces
 * still do not.
 */
const LOCAL_HOST =
  /^(localhost|127\.|0\.0\.0\.0$|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|([\w-]+\.)*(local|localhost|internal|lan|home\.arpa)$|([\w-]+\.)*(w3\.org|xml\.org|purl\.org|xmlsoap\.org|openxmlformats\.org|java\.sun\.com|jcp\.org|xmlpull\.org|json-schema\.org|ns\.adobe\.com|schemas\.[\w.-]+))/i;

/** The last name of a callee (`requests.get` → get, `new URL` → URL, `Net::HTTP.get` → get). */
export const lastName = (callee: string): string =>
  callee
    .replace(/^new\s+/, '')
    .replace(/\s+/g, '')
    .split(/\.|::|->/)
    .pop() ?? '';

/** Calls that send a request to the URL they are given. */
export const CLIENT =
  /^(get|post|put|delete|patch|head|options|request|Request|urlopen|urlretrieve|fetch|openConnection|openStream|URL|URI|HttpGet|HttpPost|HttpPut|HttpDelete|HttpPatch|NewRequest|NewRequestWithContext|Get|Post|PostForm|Head|GetAsync|PostAsync|PutAsync|DeleteAsync|PatchAsync|SendAsync|GetStringAsync|GetStreamAsync|GetByteArrayAsync|GetFromJsonAsync|PostAsJsonAsync|DownloadString|DownloadData|DownloadFile|DownloadStringTaskAsync|UploadString|UploadData|UploadFile|OpenRead|Create|WebSocket|connect|create_connection|curl_init|curl_setopt|curl_easy_setopt|file_get_contents|fopen|get_response|start|stream|getForObject|getForEntity|postForObject|postForEntity|exchange|uri|url|axios|got|needle|superagent|ajax|getJSON|fromURL|dataTask|URLRequest|NSURL|load|get_json|open|ClientSession|baseUrl|baseURL|setUrl|setURI|ws_connect|curl|wget)$/;

/** A call of an HTTP, WebSocket or FTP client given a cleartext URL to a remote host (a literal's text, or its value). */
export function cleartextRequest(callee: string, url: string): boolean {
  return (
    (CLIENT.test(lastName(callee)) || /\b(URI|URL|Uri)\.parse$/.test(callee)) && cleartextUrl(url, LOCAL_HOST)
  );
}
