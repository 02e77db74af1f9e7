import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { Toaster } from '@/components/ui/toaster'
import { filesHandlers, filesState, makeInspection, makeTemplate, PSE_COLUMNS, PSE_LEVER, type FilesState } from '@/testing/files-api'
import { mockApi } from '@/testing/mock-api'

import { MappingDialog, type ConfirmedMapping } from './mapping-dialog'

function renderDialog(state: FilesState, options: { canWrite?: boolean; inspection?: ReturnType<typeof makeInspection> } = {}) {
  const calls = mockApi(filesHandlers(state))
  const onConfirm = vi.fn<(r: ConfirmedMapping) => void>()
  const onCancel = vi.fn()
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MappingDialog
        clientId="c-1"
        fileName="pse.csv"
        lever={PSE_LEVER}
        inspection={options.inspection ?? makeInspection()}
        standardColumns={PSE_COLUMNS}
        initialTemplates={state.templates}
        canWrite={options.canWrite ?? true}
        onCancel={onCancel}
        onConfirm={onConfirm}
      />
      <Toaster />
    </QueryClientProvider>,
  )
  return { calls, onConfirm, onCancel }
}

const rowSelect = (name: string) => within(screen.getByTestId(`target-${name}`)).getByRole('combobox')
const validation = () => screen.getByRole('region', { name: 'Validation' })

describe('MappingDialog', () => {
  it("opens with the server's suggestion, validates on every change and confirms the cleaned mapping", async () => {
    const { onConfirm } = renderDialog(filesState())
    expect(rowSelect('NIF')).toHaveValue('nif')
    expect(rowSelect('Exposure_Amount')).toHaveValue('importe')
    expect(within(validation()).getByText('Missing required columns for PSE analysis')).toBeInTheDocument()
    expect(within(validation()).getByText('Please map these columns before proceeding. The analysis cannot run without them.')).toBeInTheDocument()
    expect(screen.getByText('2 of 5 columns mapped')).toBeInTheDocument()

    // Confirmation is blocked with the missing columns named.
    await userEvent.click(screen.getByRole('button', { name: 'Process File with Mapping' }))
    expect(await screen.findByText('Missing required columns')).toBeInTheDocument()
    expect(screen.getByText('The following required columns are not mapped: Maturity, Current_Risk_Weight')).toBeInTheDocument()
    expect(onConfirm).not.toHaveBeenCalled()

    await userEvent.selectOptions(rowSelect('Maturity'), 'plazo')
    await userEvent.selectOptions(rowSelect('Current_Risk_Weight'), 'rw')
    expect(within(validation()).getByText('All validations passed for PSE analysis!')).toBeInTheDocument()
    expect(screen.getByText('4 of 5 columns mapped')).toBeInTheDocument()

    // The preview names the mapped target over each column.
    const preview = screen.getByRole('region', { name: 'Data preview' })
    expect(within(preview).getAllByRole('row')).toHaveLength(4)
    expect(within(preview).getByRole('columnheader', { name: /→ Maturity\s*plazo/ })).toBeInTheDocument()
    expect(within(preview).getByRole('columnheader', { name: /Not mapped\s*nombre/ })).toBeInTheDocument()

    // The detected formats are shown and can be changed.
    await userEvent.selectOptions(screen.getByLabelText('Maturity unit'), 'days')
    await userEvent.click(screen.getByRole('button', { name: 'Process File with Mapping' }))
    expect(onConfirm).toHaveBeenCalledWith({
      mapping: { NIF: 'nif', Exposure_Amount: 'importe', Maturity: 'plazo', Current_Risk_Weight: 'rw' },
      riskWeightFormat: 'decimal',
      maturityUnit: 'days',
    })
  })

  it('choosing a source column already linked elsewhere moves it; No mapping clears a link', async () => {
    renderDialog(filesState())
    await userEvent.selectOptions(rowSelect('Legal_Name'), 'nif')
    expect(rowSelect('Legal_Name')).toHaveValue('nif')
    expect(rowSelect('NIF')).toHaveValue('')
    await userEvent.selectOptions(rowSelect('Legal_Name'), '')
    expect(screen.getByText('1 of 5 columns mapped')).toBeInTheDocument()
  })

  it('shows data-type errors and blocks confirmation with their toast', async () => {
    const { onConfirm } = renderDialog(filesState())
    await userEvent.selectOptions(rowSelect('Maturity'), 'plazo')
    await userEvent.selectOptions(rowSelect('Current_Risk_Weight'), 'rw')
    await userEvent.selectOptions(rowSelect('Exposure_Amount'), 'nombre')
    expect(within(validation()).getByText('Data type validation errors:')).toBeInTheDocument()
    expect(within(validation()).getByText(/Row 1: Source column "nombre" contains non-numeric value "Ayuntamiento de Madrid"/)).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Process File with Mapping' }))
    expect(await screen.findByText('Please fix the data type errors before proceeding.')).toBeInTheDocument()
    expect(onConfirm).not.toHaveBeenCalled()
  })

  it('filters the standard columns by search and mapped only', async () => {
    renderDialog(filesState())
    const list = screen.getByRole('region', { name: 'Standard columns' })
    await userEvent.type(screen.getByLabelText('Search standard columns'), 'tax')
    expect(within(list).getAllByRole('listitem').map((li) => li.dataset.testid)).toEqual(['target-NIF'])
    await userEvent.clear(screen.getByLabelText('Search standard columns'))
    await userEvent.click(screen.getByLabelText('Mapped only'))
    expect(within(list).getAllByRole('listitem').map((li) => li.dataset.testid)).toEqual(['target-NIF', 'target-Exposure_Amount'])
  })

  it('applies a matching template at once, and loads, saves, deletes and clears templates', async () => {
    // The file's columns are nif, plazo, importe, rw, nombre; this template shares all five (any case).
    const matching = makeTemplate({ id: 't-1', name: 'Spanish PSE export' })
    const other = makeTemplate({ id: 't-2', name: 'Other layout', sourceColumns: ['nif', 'x', 'y', 'z', 'w'], mapping: { NIF: 'nif' } })
    const state = filesState({ templates: [matching, other] })
    const { calls } = renderDialog(state)
    expect(screen.getByLabelText('Load a template')).toHaveValue('t-1')
    expect(rowSelect('Maturity')).toHaveValue('plazo')
    expect(screen.getByText('4 of 5 columns mapped')).toBeInTheDocument()

    // Loading another template replaces the whole mapping.
    await userEvent.selectOptions(screen.getByLabelText('Load a template'), 't-2')
    expect(await screen.findByText('Template applied')).toBeInTheDocument()
    expect(screen.getByText('1 of 5 columns mapped')).toBeInTheDocument()

    // Saving needs a name (trimmed).
    await userEvent.type(screen.getByPlaceholderText('Template name'), '   ')
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Template name required')).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'POST /api/mapping-templates')).toHaveLength(0)
    await userEvent.type(screen.getByPlaceholderText('Template name'), ' Mine ')
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Template saved')).toBeInTheDocument()
    const post = calls.find((c) => c.key === 'POST /api/mapping-templates')!
    expect(post.url).toBe('/api/mapping-templates?client_id=c-1')
    expect(post.body).toEqual({ name: 'Mine', leverId: PSE_LEVER.id, sourceColumns: ['nif', 'plazo', 'importe', 'rw', 'nombre'], mapping: { NIF: 'nif' } })
    await waitFor(() => expect(screen.getByLabelText('Load a template')).toHaveValue('t-3'))

    // Deleting the selected template clears the mapping.
    await userEvent.click(screen.getByRole('button', { name: 'Delete template' }))
    expect(await screen.findByText('Template deleted')).toBeInTheDocument()
    expect(state.templates.map((t) => t.id)).toEqual(['t-1', 't-2'])
    expect(screen.getByText('0 of 5 columns mapped')).toBeInTheDocument()
    expect(screen.getByLabelText('Load a template')).toHaveValue('')

    // Clear empties the mapping and deselects the template.
    await userEvent.selectOptions(screen.getByLabelText('Load a template'), 't-1')
    await userEvent.click(screen.getByRole('button', { name: 'Clear' }))
    expect(await screen.findByText('Mapping cleared')).toBeInTheDocument()
    expect(screen.getByLabelText('Load a template')).toHaveValue('')
    expect(screen.getByText('0 of 5 columns mapped')).toBeInTheDocument()
  })

  it('a template below the 0.6 overlap is not applied by itself; a viewer cannot save or delete', () => {
    const below = makeTemplate({ sourceColumns: ['nif', 'plazo', 'a', 'b', 'c'] }) // 2 of 5
    renderDialog(filesState({ templates: [below] }), { canWrite: false })
    expect(screen.getByLabelText('Load a template')).toHaveValue('')
    expect(rowSelect('Maturity')).toHaveValue('')
    expect(screen.queryByRole('button', { name: 'Save Template' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Delete template' })).not.toBeInTheDocument()
  })
})
