/**
 * Query builders and finders that take SQL text in some places and bind values in others: Rails finder option hashes
 * and list templates, `sanitize_sql*`, calculations on a model, Laravel column names, allow-listed ternaries.
 */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const rails = (body: string) =>
  `class InvoicesController < ApplicationController\n  def run\n${body}\n  end\nend\n`;
const laravel = (body: string) =>
  `<?php\nclass OrderController extends Controller\n{\n    public function run(Request $request)\n    {\n${body}\n    }\n}\n`;

/** The lines (1-based) where `code` has an SQL injection finding, with its confidence. */
async function sqlLines(code: string, language: 'ruby' | 'php') {
  return (await findings(code, language))
    .filter((f) => f.rule_id === 'security/sql-injection')
    .map((f) => `${f.line}:${f.confidence}`);
}

describe('Rails finders', () => {
  it('reads the SQL-taking keys of an option hash and leaves the others bound', async () => {
    const code = rails(`    Invoice.find(:all, :order => params[:sort])
    Invoice.find(:all, order: "number #{params[:dir]}")
    Invoice.find(:all, :limit => params[:per], :conditions => { :paid => params[:paid] })
    Invoice.calculate(:sum, :amount, :group => params[:by])`);
    expect(await sqlLines(code, 'ruby')).toEqual(['3:high', '4:high', '6:high']);
  });

  it('reads a list by its template: interpolation there is SQL, the bound values are not', async () => {
    const code = rails(`    Invoice.where(["customer = '#{params[:c]}' AND paid = ?", true])
    Invoice.where(["customer = ? AND paid = ?", params[:c], true])
    Invoice.find_by_sql(["SELECT * FROM invoices WHERE number = ?", params[:n]])
    Invoice.exists?(["number = ?", params[:n]])`);
    expect(await sqlLines(code, 'ruby')).toEqual(['3:high']);
  });

  it('keeps the template taint of sanitize_sql and drops the bound values of sanitize_sql_array', async () => {
    const code = rails(`    a = Invoice.sanitize_sql("customer = '#{params[:c]}'")
    Invoice.where(a)
    b = Invoice.sanitize_sql_array(["customer = ?", params[:c]])
    Invoice.where(b)`);
    expect(await sqlLines(code, 'ruby')).toEqual(['4:high']);
  });

  it('reports calculations on a model, not Array#count of an element', async () => {
    const code = rails(`    Invoice.sum(params[:column])
    Invoice.where(paid: true).count("DISTINCT #{params[:column]}")
    @items.count(params[:q])
    Invoice.first(params[:n].to_i)`);
    expect(await sqlLines(code, 'ruby')).toEqual(['3:high', '4:high']);
  });

  it('finds process spawning and %x with input, not argument vectors', async () => {
    const code = rails(`    Process.spawn([params[:prog], 'argv0'])
    %x(ls #{params[:dir]})
    Kernel.exec("lp #{params[:p]}")
    Process.spawn(['/usr/bin/lp', 'lp'], params[:p])
    Kernel.exec('lp', '-d', params[:p])`);
    const lines = (await findings(code, 'ruby'))
      .filter((f) => f.rule_id === 'security/command-injection')
      .map((f) => f.line);
    expect(lines).toEqual([3, 4, 5]);
  });
});

describe('Laravel and Doctrine builders', () => {
  it('reports a column or sort name from the request on a query, not on a value or a Collection', async () => {
    const code = laravel(`        DB::table('orders')->orderBy($request->input('sort'))->get();
        Order::where($request->input('field'), 'x')->get();
        Order::where('status', $request->input('value'))->get();
        collect($rows)->where($request->input('field'), 'x');`);
    expect(await sqlLines(code, 'php')).toEqual(['6:high', '7:high']);
  });

  it('reads request properties as column names and leaves Arr helpers on arrays alone', async () => {
    const code = laravel(`        Order::query()->orderBy($request->sort, 'asc')->get();
        Arr::where($request->all(), fn ($v) => $v !== null);
        Arr::pluck($request->input('items'), 'id');`);
    expect(await sqlLines(code, 'php')).toEqual(['6:high']);
  });

  it('takes the arm of an in_array ternary as one of the listed values', async () => {
    const code =
      laravel(`        $sort = in_array($request->input('sort'), ['total', 'created_at'], true) ? $request->input('sort') : 'total';
        $by = in_array($request->input('by'), $request->input('allowed')) ? $request->input('by') : 'total';
        DB::table('orders')->orderBy($sort)->get();
        DB::table('orders')->groupBy($by)->get();`);
    expect(await sqlLines(code, 'php')).toEqual(['9:high']);
  });

  it('reads expressions in complex string interpolation and DQL built by concatenation', async () => {
    const code =
      laravel(`        DB::table('orders')->select(DB::raw("count(*), {$request->input('g')}"))->get();
        $qb->where("o.customer = '" . $request->query->get('c') . "'");
        $qb->where('o.customer = :c')->setParameter('c', $request->query->get('c'));`);
    expect(await sqlLines(code, 'php')).toEqual(['6:high', '7:high']);
  });

  it('does not report unserialize told to build no objects', async () => {
    const ids = async (c: string) => (await findings(laravel(c), 'php')).map((f) => f.rule_id);
    expect(await ids(`        return unserialize($request->cookie('cart'));`)).toContain(
      'security/unsafe-deserialization',
    );
    expect(
      await ids(`        return unserialize($request->cookie('cart'), ['allowed_classes' => false]);`),
    ).not.toContain('security/unsafe-deserialization');
  });
});

describe('Django QuerySet.extra', () => {
  it('reads every entry of the select dict and the where list, not the bound params', async () => {
    const code = `def view(request):
    q = request.GET.get("q")
    Book.objects.extra(select={"rank": "score * " + q})
    Book.objects.extra(where=["title = '%s'" % q])
    Book.objects.extra(select={"rank": "score * %s"}, select_params=(q,))
    Book.objects.extra(where=["title = %s"], params=[q])
`;
    const lines = (await findings(code, 'python'))
      .filter((f) => f.rule_id === 'security/sql-injection')
      .map((f) => f.line);
    expect(lines).toEqual([3, 4]);
  });
});
