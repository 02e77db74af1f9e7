import { PDF_MAX_BYTES, checkPdfFile, methodLabel, stepDetail } from './pdf-import'

function fileOf(name: string, type: string, size: number): File {
  const f = new File(['%PDF-'], name, { type })
  Object.defineProperty(f, 'size', { value: size })
  return f
}

describe('checkPdfFile', () => {
  it('accepts a PDF up to 50 MB', () => {
    expect(checkPdfFile(fileOf('a.pdf', 'application/pdf', PDF_MAX_BYTES))).toBeNull()
    expect(checkPdfFile(fileOf('A.PDF', '', 10))).toBeNull()
  })
  it('refuses another type with the spec message', () => {
    expect(checkPdfFile(fileOf('a.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 10))).toEqual({
      title: 'Invalid file',
      message: 'Please upload a PDF file',
    })
    expect(checkPdfFile(fileOf('a.txt', '', 10))?.message).toBe('Please upload a PDF file')
  })
  it('refuses a PDF over 50 MB', () => {
    expect(checkPdfFile(fileOf('a.pdf', 'application/pdf', PDF_MAX_BYTES + 1))?.message).toBe('The PDF is larger than 50MB.')
  })
})

describe('stepDetail', () => {
  it('counts pages while parsing and sections while extracting', () => {
    expect(stepDetail('parse', { state: 'processing', done: 3, total: 300 })).toBe('Page 3 of 300')
    expect(stepDetail('extract', { state: 'completed', done: 12, total: 12 })).toBe('Section 12 of 12')
  })
  it('says nothing for a pending step or one without units', () => {
    expect(stepDetail('parse', { state: 'pending', done: 0, total: 0 })).toBeNull()
    expect(stepDetail('generate', { state: 'processing', done: 0, total: 1 })).toBeNull()
  })
})

describe('methodLabel', () => {
  it('names where the sections came from', () => {
    expect(methodLabel('outline')).toBe('its outline')
    expect(methodLabel('table_of_contents')).toBe('its table of contents')
  })
})
