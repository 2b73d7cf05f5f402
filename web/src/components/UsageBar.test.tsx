import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageBar } from './UsageBar';

afterEach(cleanup);

describe('UsageBar', () => {
  it.each([
    [10_000, 100_000, '10% used', 'usage-ok'],
    [85_000, 100_000, '85% used', 'usage-warn'],
    [99_000, 100_000, '99% used', 'usage-danger'],
    [150_000, 100_000, '100% used', 'usage-danger'],
  ])('%i of %i reads "%s" and is %s', (used, limit, label, tone) => {
    const { container } = render(<UsageBar used={used} limit={limit} />);
    expect(screen.getByText(label)).toBeTruthy();
    expect(container.querySelector(`.${tone}`)).toBeTruthy();
    const meter = screen.getByRole('meter', { name: 'Token allowance used' });
    expect(Number(meter.getAttribute('value'))).toBe(Math.min(used, limit));
  });
});
