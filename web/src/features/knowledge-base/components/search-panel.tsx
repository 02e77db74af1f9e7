import { Search } from 'lucide-react'
import { useState, type FormEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'

import { useSearch } from '../api'
import { pageRange } from '../utils/files'
import { Snippet } from './snippet'

/** Full-text search over the indexed documents: each hit with its document, heading, article, pages and highlighted passage. */
export function SearchPanel() {
  const [text, setText] = useState('')
  const [q, setQ] = useState('')
  const search = useSearch(q)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setQ(text.trim())
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Search the knowledge base</CardTitle>
        <CardDescription>Every word must match; a document is searched once it is indexed.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form role="search" onSubmit={submit} className="flex gap-2">
          <Input aria-label="Search the knowledge base" placeholder="e.g. public sector entities" value={text} onChange={(e) => setText(e.target.value)} />
          <Button type="submit">
            <Search /> Search
          </Button>
        </form>
        {q === '' ? null : search.isPending ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner /> Searching…
          </p>
        ) : search.isError ? (
          <Alert variant="destructive">{errorMessage(search.error, 'Search failed. Please try again.')}</Alert>
        ) : search.data.length === 0 ? (
          <p className="text-sm text-slate-500">No results found for “{q}”.</p>
        ) : (
          <ol className="space-y-3" aria-label="Search results">
            {search.data.map((hit) => {
              const pages = pageRange(hit.pageFrom, hit.pageTo)
              return (
                <li key={hit.chunkId} className="space-y-1 rounded-lg border border-slate-200 px-4 py-3" aria-label={hit.documentName} data-testid="kb-hit">
                  <p className="font-medium text-slate-900">{hit.documentName}</p>
                  <p className="text-xs text-slate-500">{[hit.heading, hit.article, pages].filter((x) => x).join(' · ')}</p>
                  <Snippet text={hit.snippet} />
                </li>
              )
            })}
          </ol>
        )}
      </CardContent>
    </Card>
  )
}
