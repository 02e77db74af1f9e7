import { checkKnowledgeFile, DOC_REFUSED, MAX_KB_BYTES, pageRange, splitSnippet, TOO_BIG, UNSUPPORTED } from './files'

function file(name: string, size = 10): File {
  const f = new File(['x'], name)
  Object.defineProperty(f, 'size', { value: size })
  return f
}

describe('knowledge base file checks', () => {
  it('accepts PDF, DOCX and TXT whatever the case, refuses .doc and others with the server\'s messages', () => {
    expect(checkKnowledgeFile(file('a.PDF'))).toBeNull()
    expect(checkKnowledgeFile(file('b.docx'))).toBeNull()
    expect(checkKnowledgeFile(file('c.Txt'))).toBeNull()
    expect(checkKnowledgeFile(file('old.DOC'))).toBe(DOC_REFUSED)
    expect(checkKnowledgeFile(file('sheet.xlsx'))).toBe(UNSUPPORTED)
    expect(checkKnowledgeFile(file('noextension'))).toBe(UNSUPPORTED)
  })

  it('refuses files over 25 MB', () => {
    expect(checkKnowledgeFile(file('a.pdf', MAX_KB_BYTES))).toBeNull()
    expect(checkKnowledgeFile(file('a.pdf', MAX_KB_BYTES + 1))).toBe(TOO_BIG)
  })
})

describe('search snippets', () => {
  it('splits on the mark tags only, keeping any other markup as text', () => {
    expect(splitSnippet('a <mark>b</mark> <i>c</i> <mark>d</mark>')).toEqual([
      { text: 'a ', mark: false },
      { text: 'b', mark: true },
      { text: ' <i>c</i> ', mark: false },
      { text: 'd', mark: true },
    ])
    expect(splitSnippet('<script>x</script>')).toEqual([{ text: '<script>x</script>', mark: false }])
  })

  it('names the pages of a hit', () => {
    expect(pageRange(3, 3)).toBe('Page 3')
    expect(pageRange(3, 5)).toBe('Pages 3–5')
    expect(pageRange(null, null)).toBeNull()
    expect(pageRange(2, null)).toBe('Page 2')
  })
})
