import {
  createColumnHelper,
  createPaginatedRowModel,
  createSortedRowModel,
  rowPaginationFeature,
  rowSelectionFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  useTable,
  type ColumnDef,
  type OnChangeFn,
  type PaginationState,
  type RowData,
  type RowSelectionState,
  type SortingState,
} from '@tanstack/react-table'
import { ArrowDown, ArrowUp, ArrowUpDown, ChevronLeft, ChevronRight, ChevronsLeft, ChevronsRight } from 'lucide-react'
import { useEffect, useId, useRef, useState, type ComponentProps, type ReactNode } from 'react'

import { cn } from '@/lib/cn'

import { Button } from './button'
import { Select } from './select'

/**
 * The features every data table has: sorting, paging and row selection (TanStack Table v9). Columns
 * are written against them with {@link dataTableColumns}.
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime, text: sortFn_text },
  rowPaginationFeature,
  paginatedRowModel: createPaginatedRowModel(),
  rowSelectionFeature,
})

export type DataTableFeatures = typeof dataTableFeatures
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- columns of one table hold values of different types
export type DataTableColumn<TData extends RowData> = ColumnDef<DataTableFeatures, TData, any>

/**
 * The column helper for a row type: `const col = dataTableColumns<Client>()`, then
 * `col.accessor('name', { header: 'Name' })` (sortable), `col.display({ id, header, cell })`.
 * Define columns at module level (or memoise them): a new array each render rebuilds the table.
 */
export const dataTableColumns = <TData extends RowData>() => createColumnHelper<DataTableFeatures, TData>()

/** Page sizes offered under every table. */
export const PAGE_SIZES = [5, 10, 20, 50] as const

/**
 * Server-side mode, for lists too large to load whole: `data` is the current page, already
 * sorted by the server; the table only reports the sorting and page the user asks for. Put both
 * in the query key and the request (with the client, as every key):
 *
 *     const [sorting, setSorting] = useState<SortingState>([])
 *     const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: 20 })
 *     const page = useQuery({
 *       queryKey: fileKeys.page(clientId, sorting, pagination),
 *       queryFn: () => listFiles(clientId, sorting, pagination),
 *       placeholderData: keepPreviousData,
 *     })
 *     <DataTable label="Files" columns={columns} data={page.data?.rows ?? NO_ROWS} getRowId={(f) => f.id}
 *       loading={page.isPlaceholderData}
 *       server={{ rowCount: page.data?.total ?? 0, sorting, onSortingChange: setSorting, pagination, onPaginationChange: setPagination }} />
 *
 * (`NO_ROWS` a module-level empty array: a new `[]` each render rebuilds the rows.)
 */
export type DataTableServer = {
  /** Rows matching on the server, over all pages. */
  rowCount: number
  sorting: SortingState
  onSortingChange: (sorting: SortingState) => void
  pagination: PaginationState
  onPaginationChange: (pagination: PaginationState) => void
}

export type DataTableProps<TData extends RowData> = {
  /** The table's accessible name. */
  label: string
  columns: DataTableColumn<TData>[]
  /** All rows (client mode) or the current page (server mode). Keep the reference stable. */
  data: TData[]
  /** A stable id per row (selection survives sorting, paging and refetches). */
  getRowId: (row: TData) => string
  /** Client mode: the first page size. */
  initialPageSize?: (typeof PAGE_SIZES)[number]
  /** Client mode: the initial sort. */
  initialSorting?: SortingState
  /** Adds a checkbox column; the header checkbox selects the page's rows (indeterminate when some are). */
  selectable?: boolean
  /** Controlled selection (ids to true); without it the table keeps its own. */
  rowSelection?: RowSelectionState
  onRowSelectionChange?: (selection: RowSelectionState) => void
  /** Server-side sorting and paging (see {@link DataTableServer}). */
  server?: DataTableServer
  /** Shown in place of the rows when there are none. */
  empty?: ReactNode
  /** Dims the rows while a new page is on its way (server mode). */
  loading?: boolean
  /** Called when a row is clicked (not its checkbox): opens the row's details. */
  onRowClick?: (row: TData) => void
  /**
   * The footer: `sizes` (default) 'Showing a–b of n', rows per page and first/previous/next/last;
   * `numbered` a fixed page size with 'Showing X to Y of Z items', Previous, numbered page
   * buttons and Next.
   */
  pager?: 'sizes' | 'numbered'
  className?: string
}

/** Applies a TanStack updater (a value or a function of the previous value). */
function apply<T>(updater: T | ((old: T) => T), old: T): T {
  return typeof updater === 'function' ? (updater as (old: T) => T)(old) : updater
}

/**
 * The shared table of the list screens: sortable headers (click cycles ascending, descending,
 * none), paging with 5/10/20/50 rows per page, optional row selection with a select-all checkbox,
 * in client mode (all rows given) or server mode (`server`: one page given, sorting and paging
 * done by the API).
 */
export function DataTable<TData extends RowData>({
  label,
  columns,
  data,
  getRowId,
  initialPageSize = 10,
  initialSorting = [],
  selectable = false,
  rowSelection: controlledSelection,
  onRowSelectionChange,
  server,
  empty = 'No results.',
  loading = false,
  onRowClick,
  pager = 'sizes',
  className,
}: DataTableProps<TData>) {
  const [ownSorting, setOwnSorting] = useState<SortingState>(initialSorting)
  const [ownPagination, setOwnPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: initialPageSize })
  const [ownSelection, setOwnSelection] = useState<RowSelectionState>({})

  const sorting = server?.sorting ?? ownSorting
  // Client mode: a page past the end (rows removed, page size raised) shows the last one.
  const clientPages = Math.max(1, Math.ceil(data.length / ownPagination.pageSize))
  const pagination =
    server?.pagination ?? (ownPagination.pageIndex < clientPages ? ownPagination : { ...ownPagination, pageIndex: clientPages - 1 })
  const rowSelection = controlledSelection ?? ownSelection

  const onSortingChange: OnChangeFn<SortingState> = (updater) => {
    const next = apply(updater, sorting)
    if (server) {
      server.onSortingChange(next)
      // A new order starts again from the first page.
      if (pagination.pageIndex !== 0) server.onPaginationChange({ ...pagination, pageIndex: 0 })
    } else setOwnSorting(next)
  }
  const onPaginationChange: OnChangeFn<PaginationState> = (updater) => {
    const next = apply(updater, pagination)
    if (server) server.onPaginationChange(next)
    else setOwnPagination(next)
  }
  const onSelectionChange: OnChangeFn<RowSelectionState> = (updater) => {
    const next = apply(updater, rowSelection)
    if (onRowSelectionChange) onRowSelectionChange(next)
    if (controlledSelection === undefined) setOwnSelection(next)
  }

  const table = useTable({
    features: dataTableFeatures,
    columns,
    data,
    getRowId: (row: TData) => getRowId(row),
    state: { sorting, pagination, rowSelection },
    onSortingChange,
    onPaginationChange,
    onRowSelectionChange: onSelectionChange,
    manualSorting: server !== undefined,
    manualPagination: server !== undefined,
    rowCount: server?.rowCount,
    enableRowSelection: selectable,
    enableSubRowSelection: false,
    autoResetPageIndex: false,
  })

  const rows = table.getRowModel().rows
  const rowCount = server ? server.rowCount : data.length
  const pageCount = Math.max(1, table.getPageCount())
  const pageIndex = Math.min(pagination.pageIndex, pageCount - 1)
  const first = rowCount === 0 ? 0 : pageIndex * pagination.pageSize + 1
  const last = Math.min(rowCount, (pageIndex + 1) * pagination.pageSize)
  const pageSizeId = useId()

  const columnCount = columns.length + (selectable ? 1 : 0)
  return (
    <div className={cn('space-y-3', className)}>
      <div className="overflow-x-auto rounded-lg border border-slate-200">
        <table aria-label={label} aria-busy={loading || undefined} className="w-full border-collapse text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id} className="border-b border-slate-200">
                {selectable ? (
                  <th scope="col" className="w-10 px-3 py-2">
                    <Checkbox
                      aria-label="Select all rows on this page"
                      checked={table.getIsAllPageRowsSelected()}
                      indeterminate={table.getIsSomePageRowsSelected()}
                      disabled={rows.length === 0}
                      onChange={table.getToggleAllPageRowsSelectedHandler()}
                    />
                  </th>
                ) : null}
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted()
                  const canSort = header.column.getCanSort()
                  const content = header.isPlaceholder ? null : <table.FlexRender header={header} />
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      colSpan={header.colSpan}
                      aria-sort={canSort ? (sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none') : undefined}
                      className="px-3 py-2 font-medium whitespace-nowrap"
                    >
                      {canSort && !header.isPlaceholder ? (
                        <button
                          type="button"
                          className="-mx-1 inline-flex items-center gap-1 rounded px-1 hover:text-slate-900 focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none"
                          onClick={header.column.getToggleSortingHandler()}
                        >
                          {content}
                          {sorted === 'asc' ? (
                            <ArrowUp aria-hidden className="size-3.5" />
                          ) : sorted === 'desc' ? (
                            <ArrowDown aria-hidden className="size-3.5" />
                          ) : (
                            <ArrowUpDown aria-hidden className="size-3.5 text-slate-400" />
                          )}
                        </button>
                      ) : (
                        content
                      )}
                    </th>
                  )
                })}
              </tr>
            ))}
          </thead>
          <tbody className={cn(loading && 'opacity-60')}>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={columnCount} className="px-3 py-8 text-center text-slate-500">
                  {empty}
                </td>
              </tr>
            ) : (
              rows.map((row) => (
                <tr
                  key={row.id}
                  aria-selected={selectable ? row.getIsSelected() : undefined}
                  className={cn('border-b border-slate-100 last:border-0 aria-selected:bg-brand-50', onRowClick && 'cursor-pointer hover:bg-slate-50')}
                  onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                >
                  {selectable ? (
                    <td className="px-3 py-2" onClick={(e) => e.stopPropagation()}>
                      <Checkbox
                        aria-label={`Select row ${row.id}`}
                        checked={row.getIsSelected()}
                        disabled={!row.getCanSelect()}
                        onChange={row.getToggleSelectedHandler()}
                      />
                    </td>
                  ) : null}
                  {row.getAllCells().map((cell) => (
                    <td key={cell.id} className="px-3 py-2 text-slate-800">
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {pager === 'numbered' ? (
        <NumberedPager
          first={first}
          last={last}
          rowCount={rowCount}
          pageIndex={pageIndex}
          pageCount={pageCount}
          onPage={(index) => onPaginationChange({ pageIndex: index, pageSize: pagination.pageSize })}
        />
      ) : (
        <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
          <p aria-live="polite">
            {rowCount === 0 ? 'No rows' : `Showing ${first}–${last} of ${rowCount}`}
            {selectable && Object.keys(rowSelection).length > 0 ? ` · ${Object.keys(rowSelection).length} selected` : ''}
          </p>
          <div className="flex items-center gap-3">
            <div className="flex items-center gap-2">
              <label htmlFor={pageSizeId} className="whitespace-nowrap">
                Rows per page
              </label>
              <Select
                id={pageSizeId}
                className="h-8 w-20"
                value={pagination.pageSize}
                onChange={(e) => onPaginationChange({ pageIndex: 0, pageSize: Number(e.target.value) })}
              >
                {PAGE_SIZES.map((size) => (
                  <option key={size} value={size}>
                    {size}
                  </option>
                ))}
              </Select>
            </div>
            <span className="whitespace-nowrap">
              Page {pageIndex + 1} of {pageCount}
            </span>
            <div className="flex gap-1">
              <PageButton label="First page" disabled={pageIndex === 0} onClick={() => table.firstPage()}>
                <ChevronsLeft />
              </PageButton>
              <PageButton label="Previous page" disabled={pageIndex === 0} onClick={() => table.previousPage()}>
                <ChevronLeft />
              </PageButton>
              <PageButton label="Next page" disabled={pageIndex >= pageCount - 1} onClick={() => table.nextPage()}>
                <ChevronRight />
              </PageButton>
              <PageButton label="Last page" disabled={pageIndex >= pageCount - 1} onClick={() => table.lastPage()}>
                <ChevronsRight />
              </PageButton>
            </div>
          </div>
        </div>
      )}
    </div>
  )
}

/**
 * The pages a numbered pager shows, at most 5 (spec 000 section 9): all up to 5, else the first,
 * the last and the current with its neighbours, with a gap (`null`, an ellipsis) where pages are left out.
 */
export function pageWindow(pageIndex: number, pageCount: number): (number | null)[] {
  if (pageCount <= 5) return Array.from({ length: pageCount }, (_, i) => i)
  const shown = new Set([0, pageCount - 1, pageIndex - 1, pageIndex, pageIndex + 1].filter((i) => i >= 0 && i < pageCount))
  const sorted = [...shown].sort((a, b) => a - b)
  const out: (number | null)[] = []
  sorted.forEach((i, k) => {
    if (k > 0 && i - sorted[k - 1]! > 1) out.push(null)
    out.push(i)
  })
  return out
}

type NumberedPagerProps = { first: number; last: number; rowCount: number; pageIndex: number; pageCount: number; onPage: (index: number) => void }

function NumberedPager({ first, last, rowCount, pageIndex, pageCount, onPage }: NumberedPagerProps) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
      <p aria-live="polite">{rowCount === 0 ? 'No items' : `Showing ${first} to ${last} of ${rowCount} items`}</p>
      {pageCount > 1 ? (
        <nav aria-label="Pages" className="flex items-center gap-1">
          <Button variant="outline" size="sm" disabled={pageIndex === 0} onClick={() => onPage(pageIndex - 1)}>
            Previous
          </Button>
          {pageWindow(pageIndex, pageCount).map((i, k) =>
            i === null ? (
              <span key={`gap-${k}`} className="px-1" aria-hidden>
                …
              </span>
            ) : (
              <Button
                key={i}
                variant={i === pageIndex ? 'default' : 'outline'}
                size="sm"
                className="min-w-8"
                aria-label={`Page ${i + 1}`}
                aria-current={i === pageIndex ? 'page' : undefined}
                onClick={() => onPage(i)}
              >
                {i + 1}
              </Button>
            ),
          )}
          <Button variant="outline" size="sm" disabled={pageIndex >= pageCount - 1} onClick={() => onPage(pageIndex + 1)}>
            Next
          </Button>
        </nav>
      ) : null}
    </div>
  )
}

function PageButton({ label, ...props }: { label: string } & ComponentProps<typeof Button>) {
  return <Button variant="outline" size="icon" className="size-8" aria-label={label} {...props} />
}

/** A checkbox whose `indeterminate` state (some, not all, selected) is set on the element. */
function Checkbox({ indeterminate = false, checked, ...props }: { indeterminate?: boolean } & Omit<ComponentProps<'input'>, 'type'>) {
  const ref = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate && !checked
  }, [indeterminate, checked])
  return (
    <input
      ref={ref}
      type="checkbox"
      checked={checked}
      aria-checked={indeterminate && !checked ? 'mixed' : checked}
      className="size-4 rounded border-slate-300 accent-brand-600"
      {...props}
    />
  )
}
