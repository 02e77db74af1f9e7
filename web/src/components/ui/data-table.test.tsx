import type { PaginationState, SortingState } from '@tanstack/react-table'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'

import { DataTable, dataTableColumns, pageWindow, type DataTableServer } from './data-table'

type Client = { id: string; name: string; exposures: number }

const col = dataTableColumns<Client>()
const columns = [
  col.accessor('name', { header: 'Name' }),
  col.accessor('exposures', { header: 'Exposures' }),
  col.display({ id: 'actions', header: 'Actions', cell: (ctx) => <button type="button">Open {ctx.row.original.name}</button> }),
]

// Twelve clients, deliberately not in name order: Client 01 … Client 12 with shuffled exposures.
const clients: Client[] = [7, 3, 11, 1, 9, 5, 12, 2, 10, 4, 8, 6].map((n) => ({
  id: `c-${n}`,
  name: `Client ${String(n).padStart(2, '0')}`,
  exposures: (n * 37) % 100,
}))

const bodyRows = () => within(screen.getByRole('table', { name: 'Clients' })).getAllByRole('row').slice(1)
const names = () => bodyRows().map((r) => within(r).getAllByRole('cell')[r.querySelector('input') ? 1 : 0]!.textContent)

describe('DataTable (client mode)', () => {
  it('pages through the rows with 5, 10, 20 or 50 per page', async () => {
    render(<DataTable label="Clients" columns={columns} data={clients} getRowId={(c) => c.id} />)
    expect(bodyRows()).toHaveLength(10)
    expect(screen.getByText('Showing 1–10 of 12')).toBeInTheDocument()
    expect(screen.getByText('Page 1 of 2')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled()

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }))
    expect(names()).toEqual(['Client 08', 'Client 06'])
    expect(screen.getByText('Showing 11–12 of 12')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled()

    const perPage = screen.getByLabelText('Rows per page')
    expect([...(perPage as HTMLSelectElement).options].map((o) => o.value)).toEqual(['5', '10', '20', '50'])
    await userEvent.selectOptions(perPage, '5')
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument()
    expect(bodyRows()).toHaveLength(5)
    await userEvent.click(screen.getByRole('button', { name: 'Last page' }))
    expect(names()).toEqual(['Client 08', 'Client 06'])
    await userEvent.selectOptions(perPage, '50')
    expect(screen.getByText('Page 1 of 1')).toBeInTheDocument()
    expect(bodyRows()).toHaveLength(12)
  })

  it("numbered pager: 'Showing X to Y of Z items', Previous, the page buttons and Next, no page size", async () => {
    render(<DataTable label="Clients" columns={columns} data={clients} getRowId={(c) => c.id} initialPageSize={5} pager="numbered" />)
    expect(screen.getByText('Showing 1 to 5 of 12 items')).toBeInTheDocument()
    expect(screen.queryByLabelText('Rows per page')).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page')
    await userEvent.click(screen.getByRole('button', { name: 'Page 3' }))
    expect(screen.getByText('Showing 11 to 12 of 12 items')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled()
    await userEvent.click(screen.getByRole('button', { name: 'Previous' }))
    expect(screen.getByText('Showing 6 to 10 of 12 items')).toBeInTheDocument()
  })

  it('numbered pager: long lists show the first, the last and the pages around the current one', () => {
    expect(pageWindow(0, 5)).toEqual([0, 1, 2, 3, 4])
    expect(pageWindow(0, 20)).toEqual([0, 1, null, 19])
    expect(pageWindow(9, 20)).toEqual([0, null, 8, 9, 10, null, 19])
    expect(pageWindow(19, 20)).toEqual([0, null, 18, 19])
    // Never more than five page buttons.
    expect(pageWindow(3, 7)).toEqual([0, null, 2, 3, 4, null, 6])
    for (let count = 1; count <= 30; count++)
      for (let index = 0; index < count; index++) expect(pageWindow(index, count).filter((i) => i !== null).length).toBeLessThanOrEqual(5)
  })

  it('sorts by a column: ascending, descending, then as given', async () => {
    render(<DataTable label="Clients" columns={columns} data={clients} getRowId={(c) => c.id} initialPageSize={50} />)
    const header = screen.getByRole('columnheader', { name: /Name/ })
    expect(header).toHaveAttribute('aria-sort', 'none')
    expect(screen.getByRole('columnheader', { name: 'Actions' })).not.toHaveAttribute('aria-sort')

    await userEvent.click(within(header).getByRole('button'))
    expect(header).toHaveAttribute('aria-sort', 'ascending')
    expect(names()).toEqual(clients.map((c) => c.name).sort())

    await userEvent.click(within(header).getByRole('button'))
    expect(header).toHaveAttribute('aria-sort', 'descending')
    expect(names()).toEqual(clients.map((c) => c.name).sort().reverse())

    await userEvent.click(within(header).getByRole('button'))
    expect(header).toHaveAttribute('aria-sort', 'none')
    expect(names()).toEqual(clients.map((c) => c.name))

    // Numbers sort as numbers (a table sorts descending first for them).
    const exposures = screen.getByRole('columnheader', { name: /Exposures/ })
    await userEvent.click(within(exposures).getByRole('button'))
    const values = bodyRows().map((r) => Number(within(r).getAllByRole('cell')[1]!.textContent))
    expect(values).toEqual([...values].sort((a, b) => b - a))
  })

  it('selects rows by id; the header box is indeterminate for some and selects the whole page', async () => {
    const onRowSelectionChange = vi.fn()
    render(
      <DataTable label="Clients" columns={columns} data={clients} getRowId={(c) => c.id} initialPageSize={5} selectable onRowSelectionChange={onRowSelectionChange} />,
    )
    const all = screen.getByRole('checkbox', { name: 'Select all rows on this page' }) as HTMLInputElement
    expect(all.checked).toBe(false)
    expect(all.indeterminate).toBe(false)

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select row c-3' }))
    expect(onRowSelectionChange).toHaveBeenLastCalledWith({ 'c-3': true })
    expect(all.indeterminate).toBe(true)
    expect(all).toHaveAttribute('aria-checked', 'mixed')
    expect(screen.getByText(/1 selected/)).toBeInTheDocument()

    await userEvent.click(all)
    expect(onRowSelectionChange).toHaveBeenLastCalledWith({ 'c-7': true, 'c-3': true, 'c-11': true, 'c-1': true, 'c-9': true })
    expect(all.checked).toBe(true)
    expect(all.indeterminate).toBe(false)

    // The next page is unselected; the selection stays when paging back.
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }))
    expect((screen.getByRole('checkbox', { name: 'Select all rows on this page' }) as HTMLInputElement).checked).toBe(false)
    await userEvent.click(screen.getByRole('button', { name: 'Previous page' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all rows on this page' }))
    expect(onRowSelectionChange).toHaveBeenLastCalledWith({})
  })

  it('falls back to the last page when rows go away', async () => {
    const { rerender } = render(<DataTable label="Clients" columns={columns} data={clients} getRowId={(c) => c.id} initialPageSize={5} />)
    await userEvent.click(screen.getByRole('button', { name: 'Last page' }))
    expect(screen.getByText('Page 3 of 3')).toBeInTheDocument()
    rerender(<DataTable label="Clients" columns={columns} data={clients.slice(0, 7)} getRowId={(c) => c.id} initialPageSize={5} />)
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument()
    expect(screen.getByText('Showing 6–7 of 7')).toBeInTheDocument()
  })

  it('shows the empty message without rows', () => {
    render(<DataTable label="Clients" columns={columns} data={[]} getRowId={(c) => c.id} empty="No clients yet." />)
    expect(screen.getByText('No clients yet.')).toBeInTheDocument()
    expect(screen.getByText('No rows')).toBeInTheDocument()
    expect(screen.getByText('Page 1 of 1')).toBeInTheDocument()
  })
})

describe('DataTable (server mode)', () => {
  /** A stand-in for a screen that fetches each page: it serves slices of a sorted server list. */
  function ServerList({ onRequest }: { onRequest: (sorting: SortingState, pagination: PaginationState) => void }) {
    const [sorting, setSorting] = useState<SortingState>([])
    const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: 10 })
    onRequest(sorting, pagination)
    // The server's answer: 123 rows, of which this page (the table must not re-sort or slice it).
    const page = Array.from({ length: Math.min(pagination.pageSize, 123 - pagination.pageIndex * pagination.pageSize) }, (_, i) => {
      const n = pagination.pageIndex * pagination.pageSize + i
      return { id: `s-${n}`, name: `Server row ${999 - n}`, exposures: n }
    })
    const server: DataTableServer = { rowCount: 123, sorting, onSortingChange: setSorting, pagination, onPaginationChange: setPagination }
    return <DataTable label="Clients" columns={columns} data={page} getRowId={(c) => c.id} server={server} />
  }

  it('asks for pages and sorting instead of doing them, and shows the server count', async () => {
    const onRequest = vi.fn()
    render(<ServerList onRequest={onRequest} />)
    expect(screen.getByText('Showing 1–10 of 123')).toBeInTheDocument()
    expect(screen.getByText('Page 1 of 13')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }))
    expect(onRequest).toHaveBeenLastCalledWith([], { pageIndex: 1, pageSize: 10 })
    expect(screen.getByText('Showing 11–20 of 123')).toBeInTheDocument()
    expect(names()[0]).toBe('Server row 989')

    // Sorting goes to the server and back to the first page; the rows stay in the server's order.
    await userEvent.click(within(screen.getByRole('columnheader', { name: /Name/ })).getByRole('button'))
    expect(onRequest).toHaveBeenLastCalledWith([{ id: 'name', desc: false }], { pageIndex: 0, pageSize: 10 })
    expect(names().slice(0, 3)).toEqual(['Server row 999', 'Server row 998', 'Server row 997'])

    await userEvent.selectOptions(screen.getByLabelText('Rows per page'), '50')
    expect(onRequest).toHaveBeenLastCalledWith([{ id: 'name', desc: false }], { pageIndex: 0, pageSize: 50 })
    await userEvent.click(screen.getByRole('button', { name: 'Last page' }))
    expect(screen.getByText('Showing 101–123 of 123')).toBeInTheDocument()
    expect(bodyRows()).toHaveLength(23)
  })
})
