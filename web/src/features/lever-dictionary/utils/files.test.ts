import { checkAnalysisFiles, extensionOf, formatSize, mergeFiles, MAX_ANALYSIS_BYTES } from './files'

function file(name: string, size = 10): File {
  const f = new File(['x'], name)
  Object.defineProperty(f, 'size', { value: size })
  return f
}

describe('analysis file checks', () => {
  it('asks for at least one file', () => {
    expect(checkAnalysisFiles([])?.description).toBe('Please select at least one file to upload.')
  })

  it('accepts xlsx, xls and csv only, whatever the case', () => {
    expect(checkAnalysisFiles([file('a.XLSX'), file('b.xls'), file('c.csv')])).toBeNull()
    expect(checkAnalysisFiles([file('a.csv'), file('rules.pdf')])).toEqual({
      title: 'Invalid file type',
      description: 'Please upload only xlsx, xls, csv files.',
    })
    expect(checkAnalysisFiles([file('noextension')])?.title).toBe('Invalid file type')
  })

  it('refuses files over 25 MB', () => {
    expect(checkAnalysisFiles([file('a.csv', MAX_ANALYSIS_BYTES)])).toBeNull()
    expect(checkAnalysisFiles([file('a.csv', MAX_ANALYSIS_BYTES + 1)])).toEqual({
      title: 'File too large',
      description: 'Files must be smaller than 25MB',
    })
  })

  it('bounds one upload to 20 files', () => {
    const many = Array.from({ length: 21 }, (_, i) => file(`f${i}.csv`))
    expect(checkAnalysisFiles(many)?.description).toBe('Upload at most 20 files at once.')
  })

  it('formats sizes and merges selections without duplicates', () => {
    expect(extensionOf('a.b.CSV')).toBe('csv')
    expect(formatSize(512)).toBe('512 B')
    expect(formatSize(2048)).toBe('2.0 KB')
    expect(formatSize(5 * 1024 * 1024)).toBe('5.0 MB')
    const a = file('a.csv', 1)
    expect(mergeFiles([a], [file('a.csv', 1), file('b.csv', 1)]).map((f) => f.name)).toEqual(['a.csv', 'b.csv'])
  })
})
