import { useQuery } from '@tanstack/react-query';
import { can } from '@tessera/shared';
import { lazy, Suspense } from 'react';
import { Layout } from './components/Layout';
import { ErrorState, Loading } from './components/States';
import { RoleProvider } from './lib/role';
import { Link, navigate, usePathname } from './lib/router';
import { messageOf, useTRPC } from './lib/trpc';
import { AuditPage } from './pages/AuditPage';
import { AuthPage } from './pages/AuthPage';
import { BudgetsPage } from './pages/BudgetsPage';
import { InvitePage } from './pages/InvitePage';
import { KeysPage } from './pages/KeysPage';
import { MembersPage } from './pages/MembersPage';
import { ModelsPage } from './pages/ModelsPage';
import { NoOrganisationPage } from './pages/NoOrganisationPage';
import { OverviewPage } from './pages/OverviewPage';
import { PlanPage } from './pages/PlanPage';
import { PlaygroundPage } from './pages/PlaygroundPage';

// GraphiQL and its editor are the heaviest part of the app: fetched only when the explorer opens.
const ExplorerPage = lazy(() => import('./pages/ExplorerPage').then((m) => ({ default: m.ExplorerPage })));

export const PAGES = [
  { path: '/', label: 'Overview' },
  { path: '/keys', label: 'API keys' },
  { path: '/models', label: 'Models' },
  { path: '/plan', label: 'Plan & limits' },
  { path: '/budgets', label: 'Budgets & alerts' },
  { path: '/playground', label: 'Playground' },
  { path: '/audit', label: 'Audit log' },
  { path: '/explorer', label: 'GraphQL explorer' },
  { path: '/members', label: 'Members' },
] as const;

const INVITE_PATH = /^\/invite\/([A-Za-z0-9_-]{20,100})$/;

export function App() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Signed in but in no organisation (removed from the one the session worked in): the session says so.
  const session = useQuery({
    ...trpc.auth.session.queryOptions(),
    enabled: me.isSuccess && !me.data,
    retry: false,
  });
  const invitation = INVITE_PATH.exec(pathname)?.[1];

  if (me.isPending) return <Loading label="Loading your account" />;
  if (me.isError) return <ErrorState message={messageOf(me.error)} onRetry={() => me.refetch()} />;
  if (!me.data && session.isPending) return <Loading label="Loading your account" />;
  const signedIn = Boolean(me.data || session.data);

  if (invitation) return <InvitePage token={invitation} signedIn={signedIn} />;
  if (!me.data && session.data) return <NoOrganisationPage />;
  if (!me.data) {
    const mode = pathname === '/signup' ? 'signUp' : 'signIn';
    return <AuthPage mode={mode} />;
  }
  if (pathname === '/signin' || pathname === '/signup') {
    navigate('/', { replace: true });
    return null;
  }

  const role = me.data.role ?? 'owner';
  // Pages a role cannot use at all are left out of the navigation (the server refuses them anyway).
  // Pages a role cannot use are left out of the navigation (the server refuses them anyway).
  const pages = PAGES.filter(
    (p) =>
      (p.path !== '/members' || can(role, 'members.read')) &&
      (p.path !== '/audit' || can(role, 'audit.read')),
  );
  return (
    <RoleProvider role={role} userId={me.data.userId ?? ''}>
      <Layout account={me.data} role={role} userEmail={me.data.userEmail} pages={pages}>
        <Page pathname={pathname} />
      </Layout>
    </RoleProvider>
  );
}

function Page({ pathname }: { pathname: string }) {
  switch (pathname) {
    case '/':
      return <OverviewPage />;
    case '/keys':
      return <KeysPage />;
    case '/models':
      return <ModelsPage />;
    case '/plan':
      return <PlanPage />;
    case '/budgets':
      return <BudgetsPage />;
    case '/playground':
      return <PlaygroundPage />;
    case '/audit':
      return <AuditPage />;
    case '/members':
      return <MembersPage />;
    case '/explorer':
      return (
        <Suspense fallback={<Loading label="Loading the GraphQL explorer" />}>
          <ExplorerPage />
        </Suspense>
      );
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            There is no page at <code>{pathname}</code>. <Link to="/">Go to the overview</Link>.
          </p>
        </section>
      );
  }
}
