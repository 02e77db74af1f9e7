import { render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'

import { SidebarProvider } from '@/components/ui/sidebar'
import { TooltipProvider } from '@/components/ui/tooltip'
import { adminNavigation } from '@/config/navigation'

import { AppSidebar } from './app-sidebar'

function renderAt(path: string) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <TooltipProvider>
        <SidebarProvider>
          <AppSidebar groups={adminNavigation} label="Admin navigation" homeHref="/admin/dashboard" />
        </SidebarProvider>
      </TooltipProvider>
    </MemoryRouter>,
  )
}

describe('AppSidebar for administrators', () => {
  it('links to the client-scoped screens', () => {
    renderAt('/admin/dashboard')
    expect(screen.getByRole('link', { name: 'Task Board' })).toHaveAttribute('href', '/client/board')
    expect(screen.getByRole('link', { name: 'Report Generator' })).toHaveAttribute('href', '/client/report-generator')
  })

  it('keeps the chosen client when moving between client-scoped screens', () => {
    renderAt('/client/board?client=c-2')
    expect(screen.getByRole('link', { name: 'Report Generator' })).toHaveAttribute('href', '/client/report-generator?client=c-2')
    expect(screen.getByRole('link', { name: 'Task Board' })).toHaveAttribute('href', '/client/board?client=c-2')
    expect(screen.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/admin/dashboard')
  })
})
