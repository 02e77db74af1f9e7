import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { InlineRename } from './inline-rename'
import { NameDialog } from './name-dialog'

function renderDialog(onSubmit = vi.fn()) {
  const onOpenChange = vi.fn()
  render(
    <NameDialog
      open
      onOpenChange={onOpenChange}
      title="New Report"
      description="Name the report."
      label="Report name"
      placeholder="Enter report name"
      submitLabel="Create Report"
      requiredMessage="Report name is required"
      pending={false}
      onSubmit={onSubmit}
    />,
  )
  return { onSubmit, onOpenChange }
}

describe('NameDialog', () => {
  it('says a blank name is required and submits nothing', async () => {
    const { onSubmit } = renderDialog()
    await userEvent.type(screen.getByLabelText('Report name'), '   ')
    await userEvent.click(screen.getByRole('button', { name: 'Create Report' }))
    expect(await screen.findByText('Report name is required')).toBeInTheDocument()
    expect(onSubmit).not.toHaveBeenCalled()
  })

  it('submits the trimmed name', async () => {
    const { onSubmit } = renderDialog()
    await userEvent.type(screen.getByLabelText('Report name'), '  Pillar 3 disclosure ')
    await userEvent.click(screen.getByRole('button', { name: 'Create Report' }))
    expect(onSubmit).toHaveBeenCalledWith('Pillar 3 disclosure')
  })
})

describe('InlineRename', () => {
  it('saves a changed trimmed name on Enter, and nothing for a blank one', async () => {
    const onSave = vi.fn()
    const onDone = vi.fn()
    const { unmount } = render(<InlineRename initial="Q3" label="Report name" onSave={onSave} onDone={onDone} />)
    const field = screen.getByRole('textbox', { name: 'Report name' })
    await userEvent.clear(field)
    await userEvent.type(field, ' Q4 {Enter}')
    expect(onSave).toHaveBeenCalledWith('Q4')
    expect(onDone).toHaveBeenCalledWith(true)
    unmount()

    onSave.mockClear()
    render(<InlineRename initial="Q3" label="Report name" onSave={onSave} onDone={onDone} />)
    const again = screen.getByRole('textbox', { name: 'Report name' })
    await userEvent.clear(again)
    await userEvent.type(again, '   {Enter}')
    expect(onSave).not.toHaveBeenCalled()
  })
})
