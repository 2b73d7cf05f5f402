import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Layout } from './components/Layout';
import { ErrorState, Loading } from './components/States';
import { Link, navigate, usePathname } from './lib/router';
import { messageOf, useTRPC } from './lib/trpc';
import { AuditPage } from './pages/AuditPage';
import { AuthPage } from './pages/AuthPage';
import { KeysPage } from './pages/KeysPage';
import { ModelsPage } from './pages/ModelsPage';
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
  { path: '/playground', label: 'Playground' },
  { path: '/audit', label: 'Audit log' },
  { path: '/explorer', label: 'GraphQL explorer' },
] as const;

export function App() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const me = useQuery(trpc.auth.me.queryOptions());

  if (me.isPending) return <Loading label="Loading your account" />;
  if (me.isError) return <ErrorState message={messageOf(me.error)} onRetry={() => me.refetch()} />;

  if (!me.data) {
    const mode = pathname === '/signup' ? 'signUp' : 'signIn';
    return <AuthPage mode={mode} />;
  }
  if (pathname === '/signin' || pathname === '/signup') {
    navigate('/', { replace: true });
    return null;
  }

  return (
    <Layout account={me.data} pages={PAGES}>
      <Page pathname={pathname} />
    </Layout>
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
    case '/playground':
      return <PlaygroundPage />;
    case '/audit':
      return <AuditPage />;
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
