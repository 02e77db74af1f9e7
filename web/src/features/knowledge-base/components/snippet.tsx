import { splitSnippet } from '../utils/files'

/**
 * A search snippet with its hits highlighted. Built from text nodes and `<mark>` elements only
 * (never parsed as HTML), so any other markup in the document's text shows as text.
 */
export function Snippet({ text }: { text: string }) {
  return (
    <p className="text-sm leading-relaxed text-slate-700" data-testid="kb-snippet">
      {splitSnippet(text).map((p, i) =>
        p.mark ? (
          <mark key={i} className="rounded-sm bg-yellow-200 px-0.5 text-slate-900">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </p>
  )
}
