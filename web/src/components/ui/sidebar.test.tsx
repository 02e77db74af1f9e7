import { act, fireEvent, render, screen } from '@testing-library/react'

import { SIDEBAR_COOKIE, Sidebar, SidebarProvider, SidebarTrigger, useSidebarExpanded } from './sidebar'

function Label() {
  return useSidebarExpanded() ? <span>Dashboard</span> : null
}

function renderSidebar() {
  return render(
    <SidebarProvider>
      <Sidebar label="Admin navigation">
        <Label />
      </Sidebar>
      <SidebarTrigger />
    </SidebarProvider>,
  )
}

function setViewport(width: number) {
  Object.defineProperty(window, 'innerWidth', { configurable: true, writable: true, value: width })
  window.dispatchEvent(new Event('resize'))
}

const sidebar = () => screen.getByRole('complementary', { name: 'Admin navigation' })

describe('sidebar', () => {
  beforeEach(() => setViewport(1280))

  it('starts expanded without a cookie', () => {
    renderSidebar()
    expect(sidebar()).toHaveAttribute('data-state', 'expanded')
    expect(sidebar()).toHaveStyle({ width: 'var(--sidebar-width)' })
    expect(screen.getByText('Dashboard')).toBeInTheDocument()
  })

  it('toggles with Ctrl+B and Cmd+B and remembers the state in a 7-day cookie', () => {
    const cookieSetter = vi.spyOn(document, 'cookie', 'set')
    renderSidebar()

    fireEvent.keyDown(window, { key: 'b', ctrlKey: true })
    expect(sidebar()).toHaveAttribute('data-state', 'collapsed')
    expect(sidebar()).toHaveStyle({ width: 'var(--sidebar-width-icon)' })
    expect(screen.queryByText('Dashboard')).not.toBeInTheDocument()
    expect(document.cookie).toContain(`${SIDEBAR_COOKIE}=false`)
    expect(cookieSetter).toHaveBeenLastCalledWith(expect.stringContaining('max-age=604800'))
    expect(cookieSetter).toHaveBeenLastCalledWith(expect.stringContaining('path=/'))

    fireEvent.keyDown(window, { key: 'B', metaKey: true })
    expect(sidebar()).toHaveAttribute('data-state', 'expanded')
    expect(document.cookie).toContain(`${SIDEBAR_COOKIE}=true`)
  })

  it('leaves Ctrl+B to editable elements (bold in the report editor) and to handled events', () => {
    render(
      <SidebarProvider>
        <Sidebar label="Admin navigation">
          <Label />
        </Sidebar>
        <input aria-label="Report name" />
        <textarea aria-label="Notes" />
        <div contentEditable="true" suppressContentEditableWarning aria-label="Section content">
          <p>text</p>
        </div>
        <button type="button" onKeyDown={(e) => e.preventDefault()}>
          Handles its keys
        </button>
      </SidebarProvider>,
    )
    fireEvent.keyDown(screen.getByLabelText('Report name'), { key: 'b', ctrlKey: true })
    fireEvent.keyDown(screen.getByLabelText('Notes'), { key: 'b', metaKey: true })
    fireEvent.keyDown(screen.getByText('text'), { key: 'b', ctrlKey: true })
    fireEvent.keyDown(screen.getByRole('button', { name: 'Handles its keys' }), { key: 'b', ctrlKey: true })
    expect(sidebar()).toHaveAttribute('data-state', 'expanded')
    // The same shortcut anywhere else still toggles.
    fireEvent.keyDown(document.body, { key: 'b', ctrlKey: true })
    expect(sidebar()).toHaveAttribute('data-state', 'collapsed')
  })

  it('ignores B without a modifier', () => {
    renderSidebar()
    fireEvent.keyDown(window, { key: 'b' })
    expect(sidebar()).toHaveAttribute('data-state', 'expanded')
  })

  it('restores the collapsed state from the cookie', () => {
    document.cookie = `${SIDEBAR_COOKIE}=false; path=/`
    renderSidebar()
    expect(sidebar()).toHaveAttribute('data-state', 'collapsed')
  })

  it('toggles from the trigger button', () => {
    renderSidebar()
    fireEvent.click(screen.getByRole('button', { name: 'Toggle sidebar' }))
    expect(sidebar()).toHaveAttribute('data-state', 'collapsed')
  })

  it('is a closed drawer below 768 px that the shortcut opens', () => {
    setViewport(600)
    renderSidebar()
    expect(screen.queryByRole('complementary')).not.toBeInTheDocument()
    expect(screen.queryByText('Dashboard')).not.toBeInTheDocument()
    act(() => {
      fireEvent.keyDown(window, { key: 'b', ctrlKey: true })
    })
    expect(screen.getByRole('dialog', { name: 'Admin navigation' })).toBeInTheDocument()
    expect(screen.getByText('Dashboard')).toBeInTheDocument()
    // The desktop preference is untouched by the mobile drawer.
    expect(document.cookie).not.toContain(SIDEBAR_COOKIE)
  })
})
