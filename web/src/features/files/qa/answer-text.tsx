import type { ReactNode } from 'react'

/** One line of an answer: a numbered header, a bullet, a `Key: value` line or plain text. */
type Line =
  | { kind: 'header'; number: string; title: string }
  | { kind: 'bullet'; text: string }
  | { kind: 'text'; text: string }

const HEADER = /^(\d+)\.\s+(.+)$/
const BULLET = /^\s*[-•*]\s+(.*)$/
/** A key of a few words before a colon and a value after it (not a time like 10:30). */
const KEY_VALUE = /^([^:]{1,60}?):\s+(.+)$/

function classify(line: string): Line {
  const header = HEADER.exec(line)
  if (header) return { kind: 'header', number: header[1]!, title: header[2]! }
  const bullet = BULLET.exec(line)
  if (bullet) return { kind: 'bullet', text: bullet[1]! }
  return { kind: 'text', text: line }
}

/** Text, with a leading `Key:` in bold when the line is a key/value line. */
function Inline({ text }: { text: string }) {
  const kv = KEY_VALUE.exec(text)
  if (!kv) return <>{text}</>
  return (
    <>
      <span className="font-semibold">{kv[1]}:</span> {kv[2]}
    </>
  )
}

/**
 * An answer in the agent's format (spec 2.8): numbered headers, bullets and `Key: value` lines,
 * rendered as elements (the text is never read as HTML).
 */
export function AnswerText({ text }: { text: string }) {
  const out: ReactNode[] = []
  let bullets: string[] = []
  const flush = () => {
    if (bullets.length === 0) return
    const items = bullets
    out.push(
      <ul key={`ul-${out.length}`} className="my-1 list-disc space-y-0.5 pl-5">
        {items.map((b, i) => (
          <li key={i}>
            <Inline text={b} />
          </li>
        ))}
      </ul>,
    )
    bullets = []
  }
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') {
      flush()
      continue
    }
    const line = classify(raw.trimEnd())
    if (line.kind === 'bullet') {
      bullets.push(line.text)
      continue
    }
    flush()
    if (line.kind === 'header') {
      out.push(
        <p key={`h-${out.length}`} role="heading" aria-level={4} className="mt-2 font-semibold text-slate-900 first:mt-0">
          {line.number}. {line.title}
        </p>,
      )
    } else {
      out.push(
        <p key={`p-${out.length}`}>
          <Inline text={line.text} />
        </p>,
      )
    }
  }
  flush()
  return <div className="space-y-1 text-sm leading-relaxed">{out}</div>
}
