import { FirstCall } from '../components/overview/FirstCall';

export function OverviewPage() {
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <FirstCall />
    </section>
  );
}
