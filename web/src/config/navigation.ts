import type { Role } from '@/api/types/Role'
import { FileText, FolderCog, FolderOpen, LayoutDashboard, Home, UploadCloud, type LucideIcon } from 'lucide-react'

import { Activity, Calculator, Columns3, GraduationCap, KanbanSquare, LifeBuoy, Shuffle } from 'lucide-react'

import { BookOpen, BrainCircuit, LayoutTemplate, Library, Settings } from 'lucide-react'

import { Building2, UserCog } from 'lucide-react'

import { FileCheck } from 'lucide-react'

import { paths } from './paths'

export type NavItem = {
  label: string
  href: string
  icon: LucideIcon
  /** A client-scoped screen (board, reports): the link keeps the client chosen in the URL. */
  clientScoped?: boolean
}
export type NavGroup = { label: string; items: NavItem[] }

/**
 * The sidebars. Only screens that exist are listed: adding a screen is one line in its group.
 * Groups without items are not shown.
 */
export const adminNavigation: NavGroup[] = [
  {
    label: 'Main',
    items: [
      { label: 'Dashboard', href: paths.admin.dashboard.getHref(), icon: LayoutDashboard },
      { label: 'Clients', href: paths.admin.clients.getHref(), icon: Building2 },
      { label: 'User Management', href: paths.admin.userManagement.getHref(), icon: UserCog },
      { label: 'File Management', href: paths.admin.fileManagement.getHref(), icon: FolderCog },
      { label: 'Processing Runs', href: paths.admin.processingRuns.getHref(), icon: Activity },
      { label: 'Lever dictionary', href: paths.admin.leverDictionary.getHref(), icon: BookOpen },
      { label: 'Report templates', href: paths.admin.templates.getHref(), icon: LayoutTemplate },
    ],
  },
  {
    // Client-scoped screens; administrators choose the client there (the client switcher).
    label: 'Regular Features',
    items: [
      { label: 'Our Files', href: paths.client.files.getHref(), icon: FolderOpen, clientScoped: true },
      { label: 'File Processor', href: paths.client.fileProcessor.getHref(), icon: UploadCloud, clientScoped: true },
      { label: 'Report Generator', href: paths.client.reports.getHref(), icon: FileText, clientScoped: true },
      { label: 'Task Board', href: paths.client.board.getHref(), icon: KanbanSquare, clientScoped: true },
      // The admin calculator: any figures, or a client's (chosen with the switcher) to save scenarios for it.
      { label: 'Calculator', href: paths.admin.calculator.getHref(), icon: Calculator, clientScoped: true },
      { label: 'AI Insights', href: paths.client.aiDashboard.getHref(), icon: BrainCircuit, clientScoped: true },
    ],
  },
  {
    label: 'AI Features',
    items: [
      { label: 'Column Configuration', href: paths.admin.columnConfiguration.getHref(), icon: Columns3 },
      { label: 'Universal Mappings', href: paths.admin.universalMappings.getHref(), icon: Shuffle },
      { label: 'Classification training', href: paths.admin.classificationTraining.getHref(), icon: GraduationCap },
      { label: 'AI Knowledge Base', href: paths.admin.knowledgeBase.getHref(), icon: Library },
      { label: 'Lever Justifications', href: paths.admin.leverJustifications.getHref(), icon: FileCheck },
    ],
  },
]

export const clientNavigation: NavGroup[] = [
  {
    label: 'Navigation',
    items: [
      { label: 'Home', href: paths.client.home.getHref(), icon: Home },
      { label: 'Dashboard', href: paths.client.dashboard.getHref(), icon: LayoutDashboard },
      { label: 'Our Files', href: paths.client.files.getHref(), icon: FolderOpen },
      { label: 'File Processor', href: paths.client.fileProcessor.getHref(), icon: UploadCloud },
      { label: 'Report Generator', href: paths.client.reports.getHref(), icon: FileText },
      { label: 'Calculator', href: paths.client.calculator.getHref(), icon: Calculator },
      { label: 'AI Insights', href: paths.client.aiDashboard.getHref(), icon: BrainCircuit },
      { label: 'Task Board', href: paths.client.board.getHref(), icon: KanbanSquare },
      { label: 'FAQ & Support', href: paths.client.support.getHref(), icon: LifeBuoy },
      { label: 'Settings', href: paths.client.settings.getHref(), icon: Settings },
    ],
  },
]

export type ProfileLink = { label: string; href: string }

/**
 * Extra entries of the top-bar profile menu (Sign out is always there): administrators' profile
 * and settings pages, everyone else's settings (spec 000 section 2.4).
 */
export const profileMenuLinks: Record<'admin' | 'other', ProfileLink[]> = {
  admin: [
    { label: 'Profile', href: paths.adminProfile.getHref() },
    { label: 'Settings', href: paths.adminSettings.getHref() },
  ],
  other: [{ label: 'Settings', href: paths.clientSettings.getHref() }],
}

/** Admins get the admin sidebar; everyone else the client sidebar. */
export function navigationFor(role: Role): NavGroup[] {
  return role === 'admin' ? adminNavigation : clientNavigation
}

/** Where a signed-in user lands. */
export function homePathFor(role: Role): string {
  return role === 'admin' ? paths.admin.dashboard.getHref() : paths.client.home.getHref()
}
