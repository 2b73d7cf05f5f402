import type { ReactNode } from 'react';
import { ScrollRegion } from '../ScrollRegion';

/** A column of a traffic table: its heading and what a row shows in it (right-aligned when `numeric`). */
export interface TrafficColumn<R> {
  heading: string;
  numeric?: boolean;
  cell: (row: R) => ReactNode;
}

/** A dash for a figure that does not apply to the row, saying why on hover. */
export function notApplicable(title: string) {
  return <abbr title={title}>–</abbr>;
}

/**
 * The overview's per-endpoint and per-deployment tables: a named, keyboard-scrollable table whose first column
 * heads each row. The tables differ only in their columns.
 */
export function TrafficTable<R>({
  label,
  columns,
  rows,
  rowKey,
}: {
  label: string;
  columns: readonly [TrafficColumn<R>, ...TrafficColumn<R>[]];
  rows: readonly R[];
  rowKey: (row: R) => string;
}) {
  const [head, ...rest] = columns;
  return (
    <ScrollRegion label={label}>
      <table>
        <caption className="sr-only">{label}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.heading} scope="col" className={c.numeric ? 'num' : undefined}>
                {c.heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              <th scope="row">{head.cell(r)}</th>
              {rest.map((c) => (
                <td key={c.heading} className={c.numeric ? 'num' : undefined}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
