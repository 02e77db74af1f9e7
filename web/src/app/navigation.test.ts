import type { RouteObject } from 'react-router'

import { adminNavigation, clientNavigation, profileMenuLinks } from '@/config/navigation'

import { routes } from './routes'

/** Every concrete path of the route table (patterns with parameters and `*` left out). */
function routePaths(list: RouteObject[], out = new Set<string>()): Set<string> {
  for (const r of list) {
    if (r.path && !r.path.includes(':') && !r.path.includes('*')) out.add(r.path)
    if (r.children) routePaths(r.children, out)
  }
  return out
}

describe('the sidebars and the profile menu', () => {
  const known = routePaths(routes)
  const links = [
    ...adminNavigation.flatMap((g) => g.items.map((i) => i.href)),
    ...clientNavigation.flatMap((g) => g.items.map((i) => i.href)),
    ...profileMenuLinks.admin.map((l) => l.href),
    ...profileMenuLinks.other.map((l) => l.href),
  ]

  it('link only to screens that exist', () => {
    for (const href of links) expect(known, href).toContain(href.split('?')[0])
  })

  it('list the lever dictionary, the knowledge base, the lever justifications, the settings and the profile pages', () => {
    expect(adminNavigation.find((g) => g.label === 'Main')!.items.map((i) => i.label)).toContain('Lever dictionary')
    expect(adminNavigation.find((g) => g.label === 'AI Features')!.items.find((i) => i.label === 'AI Knowledge Base')!.href).toBe('/admin/knowledge-base')
    expect(adminNavigation.find((g) => g.label === 'AI Features')!.items.find((i) => i.label === 'Lever Justifications')!.href).toBe(
      '/admin/lever-justifications',
    )
    expect(clientNavigation.flatMap((g) => g.items).find((i) => i.label === 'Settings')!.href).toBe('/client/settings')
    expect(profileMenuLinks.admin).toEqual([
      { label: 'Profile', href: '/admin-profile' },
      { label: 'Settings', href: '/admin-settings' },
    ])
    expect(profileMenuLinks.other).toEqual([{ label: 'Settings', href: '/client-settings' }])
  })
})
