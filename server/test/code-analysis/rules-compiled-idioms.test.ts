/**
 * Idioms of Java/Spring, C#/ASP.NET, Swift and C added for issue 44 whose behaviour a vulnerable/safe pair does not
 * pin down: where a finding lands (every pipeline step of a Configure without HSTS, the `setSecure(false)` line, the
 * hostname verifier's class name), and the forms that keep them quiet (a view name, a padded hex digit, a filter).
 */
import type { CodeLanguage, Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';

async function findings(code: string, language: CodeLanguage): Promise<Finding[]> {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
  });
  expect(r.parse_errors).toEqual([]);
  return r.issues;
}
const lines = (fs: Finding[], rule: string) => [
  ...new Set(fs.filter((f) => f.rule_id === rule).map((f) => f.line)),
];

describe('ASP.NET HSTS', () => {
  const configure = (extra: string) => `public class Startup
{
    public void Configure(IApplicationBuilder app, IWebHostEnvironment env)
    {
        app.UseHttpsRedirection();${extra}
        app.UseRouting();
        app.UseEndpoints(e => e.MapControllers());
    }
    public void ConfigureServices(IServiceCollection services)
    {
        services.AddControllers();
    }
}
`;
  it('reports each pipeline step of a Configure that never calls UseHsts, and ConfigureServices', async () => {
    expect(lines(await findings(configure(''), 'csharp'), 'security/hsts-not-configured')).toEqual([
      5, 6, 7, 11,
    ]);
  });
  it('is quiet once UseHsts is called', async () => {
    expect(
      lines(await findings(configure('\n        app.UseHsts();'), 'csharp'), 'security/hsts-not-configured'),
    ).toEqual([]);
  });
});

describe('servlet cookie flags', () => {
  it('reports a flag turned off on its own line, and a missing HttpOnly at addCookie', async () => {
    const code = `class C {
    void set(HttpServletResponse response, String v) {
        Cookie a = new Cookie("a", v);
        a.setSecure(false);
        response.addCookie(a);
        Cookie b = new Cookie("b", v);
        b.setSecure(true);
        response.addCookie(b);
    }
}
`;
    const fs = await findings(code, 'java');
    expect(lines(fs, 'security/insecure-cookie')).toEqual([4]);
    expect(lines(fs, 'security/cookie-without-httponly')).toEqual([5, 8]);
  });
  it('leaves cookies it did not create, or hands to a helper, to the code that configures them', async () => {
    const code = `class C {
    void clear(HttpServletRequest request, HttpServletResponse response) {
        Cookie old = lookup(request.getCookies(), "sid");
        old.setSecure(true);
        response.addCookie(old);
        Cookie c = new Cookie("sid", "");
        c.setSecure(true);
        harden(c);
        response.addCookie(c);
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/cookie-without-httponly')).toEqual([]);
  });
});

describe('Spring handlers returning HTML', () => {
  it('reads a @Controller method without @ResponseBody as returning a view name', async () => {
    const code = `@Controller
public class Pages {
    @GetMapping("/p")
    public String page(@RequestParam String name) {
        return "<b>" + name + "</b>";
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/xss')).toEqual([]);
  });
  it('reports the same method under @RestController', async () => {
    const code = `@RestController
public class Pages {
    @GetMapping("/p")
    public String page(@RequestParam String name) {
        return "<b>" + name + "</b>";
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/xss')).toEqual([5]);
  });
});

describe('JVM deserialisers and verifiers', () => {
  it('reports the class that implements an accept-all HostnameVerifier on its declaration line', async () => {
    const code = `public class Any implements HostnameVerifier {
    public boolean verify(String h, SSLSession s) {
        return true;
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/tls-verification-disabled')).toEqual([1]);
  });
  it('is quiet on an ObjectInputStream whose file installs an ObjectInputFilter', async () => {
    const code = `class R {
    Object read(InputStream in) throws Exception {
        ObjectInputStream ois = new ObjectInputStream(in);
        ois.setObjectInputFilter(FILTER);
        return ois.readObject();
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/object-deserialization')).toEqual([]);
  });
  it('keeps RSA/ECB with OAEP quiet but reports textbook RSA', async () => {
    const code = `class K {
    void k() throws Exception {
        Cipher a = Cipher.getInstance("RSA/ECB/OAEPWithSHA-256AndMGF1Padding");
        Cipher b = Cipher.getInstance("RSA/ECB/NoPadding");
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/weak-cipher')).toEqual([4]);
  });
  it('does not report a hex loop that pads each byte', async () => {
    const code = `class H {
    String hex(byte[] d) {
        StringBuilder sb = new StringBuilder();
        for (byte b : d) {
            String h = Integer.toHexString(b & 0xff);
            if (h.length() == 1) sb.append('0');
            sb.append(h);
        }
        return sb.toString();
    }
}
`;
    expect(lines(await findings(code, 'java'), 'security/bad-hex-conversion')).toEqual([]);
  });
});

describe('C# settings', () => {
  it('reports wildcard HttpListener hosts but not a named host under a wildcard subdomain', async () => {
    const code = `class L {
    void Start(HttpListener listener) {
        listener.Prefixes.Add("http://*:8080/");
        listener.Prefixes.Add("https://*.example.com:8443/");
        listener.Prefixes.Add("http://localhost:8080/");
    }
}
`;
    expect(lines(await findings(code, 'csharp'), 'security/http-listener-wildcard')).toEqual([3]);
  });
  it('judges KeySize only on an RSA or DSA object', async () => {
    const code = `class K {
    void K1(RSA rsa, Aes aes) {
        rsa.KeySize = 1024;
        aes.KeySize = 128;
    }
}
`;
    expect(lines(await findings(code, 'csharp'), 'security/weak-key-size')).toEqual([3]);
  });
});
