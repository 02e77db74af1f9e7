import type { DataTable } from '@/api/types/DataTable'
import type { DatasetInfo } from '@/api/types/DatasetInfo'
import type { ReportMedia } from '@/api/types/ReportMedia'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ReactNode } from 'react'

import { json, mockApi } from '@/testing/mock-api'

import { ChartBuilder } from './chart-builder'
import { TableBuilder } from './table-builder'
import type { ChartConfig } from './nodes-model'

const file: ReportMedia = {
  id: 'm-1',
  reportId: 'r-1',
  name: 'quarters.csv',
  kind: 'csv',
  fileType: 'csv',
  contentType: 'text/csv',
  sizeBytes: 60,
  url: '/api/reports/r-1/media/m-1',
  sheet: null,
  headers: ['Quarter', 'Capital saved', 'Note'],
  rowCount: 3,
  columnCount: 3,
  uploadedBy: 'u-1',
  uploadedByName: 'Ana García',
  createdAt: '2026-11-02T10:00:00.000000Z',
}
const datasets: DatasetInfo[] = [{ name: 'savings_by_lever', label: 'Savings by lever', group: 'Savings', columns: ['Lever', 'Category', 'RWA savings', 'Previous month RWA savings'] }]
const rows: DataTable = {
  columns: ['Quarter', 'Capital saved', 'Note'],
  rows: [
    ['Q1', 1500000, 'a'],
    ['Q2', 'n/a', null],
    ['Q3', 1980000, 'c'],
  ],
  offset: 0,
  totalRows: 3,
}

function wrap(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return render(<QueryClientProvider client={client}>{children}</QueryClientProvider>)
}

const blank: ChartConfig = {
  chartId: 'c-1',
  chartType: 'bar',
  title: '',
  xColumn: '',
  yColumns: [],
  rows: [],
  source: null,
  width: 600,
  height: 400,
  fontSize: 12,
  fontFamily: 'Arial',
  colorScheme: 'default',
  showLegend: true,
  showGrid: true,
}

describe('the chart builder', () => {
  it('keeps Insert Chart disabled without data, then draws the chosen columns with non-numbers as 0', async () => {
    mockApi({ 'GET /api/reports/r-1/media/m-1/rows': () => json(200, rows) })
    const submitted: ChartConfig[] = []
    wrap(<ChartBuilder clientId="c-1" reportId="r-1" tables={[file]} datasets={datasets} initial={blank} editing={false} onCancel={() => {}} onSubmit={(c) => submitted.push(c)} />)
    const insert = screen.getByRole('button', { name: 'Insert Chart' })
    expect(insert).toBeDisabled()
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Data source'), 'media:m-1')
    // The first text column as x, the first numeric column as y.
    await waitFor(() => expect(screen.getByLabelText('X axis column')).toHaveValue('Quarter'))
    expect(screen.getByRole('checkbox', { name: 'Capital saved' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Note' })).not.toBeChecked()
    await waitFor(() => expect(insert).toBeEnabled())
    await user.selectOptions(screen.getByLabelText('Chart type'), 'area')
    // Out-of-range sizes are brought back within bounds when the field is left.
    const width = screen.getByLabelText('Width')
    await user.clear(width)
    await user.type(width, '5000')
    await user.tab()
    expect(width).toHaveValue(1200)
    await user.click(screen.getByRole('radio', { name: /Banking/ }))
    await user.click(insert)
    expect(submitted).toHaveLength(1)
    expect(submitted[0]).toMatchObject({
      chartType: 'area',
      xColumn: 'Quarter',
      yColumns: ['Capital saved'],
      width: 1200,
      colorScheme: 'banking',
      source: { kind: 'media', mediaId: 'm-1', sheet: '' },
      rows: [
        { Quarter: 'Q1', 'Capital saved': 1500000 },
        { Quarter: 'Q2', 'Capital saved': 0 },
        { Quarter: 'Q3', 'Capital saved': 1980000 },
      ],
    })
  })

  it('offers the client datasets beside the uploaded files', () => {
    wrap(<ChartBuilder clientId="c-1" reportId="r-1" tables={[file]} datasets={datasets} initial={blank} editing={false} onCancel={() => {}} onSubmit={() => {}} />)
    const options = [...(screen.getByLabelText('Data source') as HTMLSelectElement).options].map((o) => o.textContent)
    expect(options).toEqual(['Choose data...', 'quarters.csv', 'Savings by lever'])
  })
})

describe('the table builder', () => {
  it('previews at most 5 rows, caps the max rows by the data and inserts the options', async () => {
    mockApi({ 'GET /api/reports/r-1/media/m-1/rows': () => json(200, rows) })
    const submitted: unknown[] = []
    wrap(
      <TableBuilder
        clientId="c-1"
        reportId="r-1"
        tables={[file]}
        datasets={datasets}
        initial={{ maxRows: 20, fontSize: 12, width: '100%', source: null }}
        editing={false}
        onCancel={() => {}}
        onSubmit={(t, o) => submitted.push([t.columns, o])}
      />,
    )
    const insert = screen.getByRole('button', { name: 'Insert Table' })
    expect(insert).toBeDisabled()
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Data source'), 'media:m-1')
    await waitFor(() => expect(screen.getByTestId('table-preview').querySelectorAll('tbody tr')).toHaveLength(3))
    expect(screen.getByLabelText('Max rows')).toHaveValue('5')
    await user.selectOptions(screen.getByLabelText('Table width'), '50%')
    await user.selectOptions(screen.getByLabelText('Table font size'), '10')
    await user.click(insert)
    expect(submitted).toEqual([[rows.columns, { maxRows: 5, fontSize: 10, width: '50%', source: { kind: 'media', mediaId: 'm-1', sheet: '' } }]])
  })
})
