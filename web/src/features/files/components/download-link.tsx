import type { ComponentProps } from 'react'

import { apiRequest } from '@/lib/api-client'
import { toast } from '@/lib/toast'

/**
 * A link to a stored file that checks the file is there (a HEAD request, with the session
 * refreshed if need be) before the browser downloads it, so a missing or refused file gives the
 * spec's 'Download Failed' toast instead of the browser's own error page. The browser still
 * streams the download itself (`Content-Disposition: attachment`), never the page's memory.
 */
export function DownloadLink({ href, children, ...props }: ComponentProps<'a'> & { href: string }) {
  const onClick = async (event: React.MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault()
    try {
      await apiRequest(href, { method: 'HEAD' })
    } catch {
      toast.error('Download Failed', 'Could not download the file. Please try again later.')
      return
    }
    window.location.assign(href)
  }
  return (
    <a href={href} download onClick={onClick} {...props}>
      {children}
    </a>
  )
}
