/** CSRF protection turned off and mass assignment from the whole request: vulnerable examples fire, safe ones do not. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const CASES: RuleCase[] = [
  [
    'security/csrf-disabled',
    'python',
    '@csrf_exempt\ndef transfer(request):\n    pass\n',
    '@require_POST\ndef transfer(request):\n    pass\n',
  ],
  ['security/csrf-disabled', 'python', 'WTF_CSRF_ENABLED = False\n', 'WTF_CSRF_ENABLED = True\n'],
  [
    'security/csrf-disabled',
    'java',
    'class S { SecurityFilterChain f(HttpSecurity http) throws Exception { http.csrf(csrf -> csrf.disable()); return http.build(); } }',
    'class S { SecurityFilterChain f(HttpSecurity http) throws Exception { http.csrf(Customizer.withDefaults()); return http.build(); } }',
  ],
  [
    'security/csrf-disabled',
    'java',
    'class S { void f(HttpSecurity http) throws Exception { http.csrf().disable(); } }',
    'class S { void f(HttpSecurity http) throws Exception { http.cors().disable(); } }',
  ],
  [
    'security/csrf-disabled',
    'kotlin',
    'fun f(http: HttpSecurity) { http { csrf { disable() } } }',
    'fun f(http: HttpSecurity) { http { cors { disable() } } }',
  ],
  [
    'security/csrf-disabled',
    'ruby',
    'class UsersController < ApplicationController\n  skip_before_action :verify_authenticity_token\nend\n',
    'class UsersController < ApplicationController\n  skip_before_action :authenticate_user!\nend\n',
  ],
  [
    'security/csrf-disabled',
    'ruby',
    'class ApplicationController < ActionController::Base\nend\n',
    'class ApplicationController < ActionController::Base\n  protect_from_forgery with: :exception\nend\n',
  ],
  [
    'security/csrf-disabled',
    'csharp',
    'public class HomeController : Controller {\n  [HttpPost]\n  public IActionResult Save(Model m) { return View(); }\n}\n',
    'public class HomeController : Controller {\n  [HttpPost]\n  [ValidateAntiForgeryToken]\n  public IActionResult Save(Model m) { return View(); }\n}\n',
  ],
  [
    'security/csrf-disabled',
    'csharp',
    'public class HomeController : Controller {\n  [IgnoreAntiforgeryToken]\n  public IActionResult Index() { return View(); }\n}\n',
    'public class HomeController : Controller {\n  public IActionResult Index() { return View(); }\n}\n',
  ],
  [
    'security/csrf-disabled',
    'php',
    "<?php class VerifyCsrfToken extends Middleware { protected $except = ['*']; }",
    "<?php class VerifyCsrfToken extends Middleware { protected $except = ['stripe/*']; }",
  ],
  [
    'security/mass-assignment',
    'ruby',
    'def update\n  @user.update(params[:user])\nend\n',
    'def update\n  @user.update(user_params)\nend\n',
  ],
  [
    'security/mass-assignment',
    'ruby',
    'def user_params\n  params.permit!\nend\n',
    'def user_params\n  params.require(:user).permit(:name, :email)\nend\n',
  ],
  [
    'security/mass-assignment',
    'python',
    "class UserForm(forms.ModelForm):\n    class Meta:\n        model = User\n        fields = '__all__'\n",
    "class UserForm(forms.ModelForm):\n    class Meta:\n        model = User\n        fields = ['name', 'email']\n",
  ],
  [
    'security/mass-assignment',
    'python',
    'def create(request):\n    User.objects.create(**request.POST.dict())\n',
    'def create(request):\n    User.objects.create(name=request.POST["name"])\n',
  ],
  [
    'security/mass-assignment',
    'php',
    '<?php class User extends Model { protected $guarded = []; }',
    "<?php class User extends Model { protected $fillable = ['name', 'email']; }",
  ],
  [
    'security/mass-assignment',
    'php',
    '<?php User::create($request->all());',
    "<?php User::create($request->only(['name', 'email']));",
  ],
  [
    'security/mass-assignment',
    'javascript',
    'app.post("/u", async (req, res) => { const u = new User(req.body); await u.save(); });',
    'app.post("/u", async (req, res) => { const u = new User({ name: req.body.name }); await u.save(); });',
  ],
  [
    'security/mass-assignment',
    'typescript',
    'async function f(req: Request) { await User.findByIdAndUpdate(req.params.id, req.body); }',
    'async function f(req: Request) { await User.findByIdAndUpdate(req.params.id, { name: req.body.name }); }',
  ],
];

describe('CSRF and mass assignment: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect(bad.find((f) => f.rule_id === rule)?.cwe).toMatch(/^CWE-(352|915)$/);
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});
