import { makeFile, makeRun } from '@/testing/files-api'

import { filterParams, clientPath, NO_FILTERS } from '../api'
import { fileStatusView, formatBpsUnit, formatConfidence, formatMillionsEur, formatRwas, pendingCounts, runProgressText } from './format'
import { checkUpload, MAX_UPLOAD_BYTES } from './upload-checks'

const nbsp = (s: string) => s.replace(/\u00a0/g, ' ')

describe('formatting', () => {
  it('shows savings in millions of euros with one decimal and bps with two', () => {
    expect(nbsp(formatMillionsEur(12_345_678))).toBe('12,3 M€')
    expect(nbsp(formatMillionsEur(50_000))).toBe('0,1 M€')
    expect(formatMillionsEur(null)).toBe('—')
    expect(nbsp(formatBpsUnit(2.567))).toBe('2,57 bps')
    expect(formatBpsUnit(null)).toBe('—')
  })

  it('shows RWAs in euros without decimals and confidence with one decimal', () => {
    expect(nbsp(formatRwas(1234567.4))).toBe('1.234.567 €')
    expect(formatConfidence(0.8766)).toBe('87.7%')
  })

  it("writes a run's progress from its own figures", () => {
    expect(runProgressText(makeRun({ state: 'running', stage: 'evaluating', percent: 42.4, rowsTotal: 10000, rowsDone: 4200 }))).toBe(
      'Analysing exposures · 42% · 4200 of 10.000 rows',
    )
    expect(runProgressText(makeRun({ state: 'running', stage: 'reading', percent: 5, rowsRead: 1500 }))).toBe('Reading the file · 5% · 1500 rows read')
  })
})

describe('file status', () => {
  it('is Processed, Uploaded or Pending Lever, and the live state of a run', () => {
    expect(fileStatusView(makeFile()).label).toBe('Processed')
    expect(fileStatusView(makeFile({ processed: false, status: 'uploaded' })).label).toBe('Uploaded')
    const pending = fileStatusView(makeFile({ processed: false, status: 'uploaded', leverId: null, leverName: null }))
    expect(pending).toMatchObject({ label: 'Pending Lever', detail: 'This file is pending lever assignment by an administrator' })
    expect(fileStatusView(makeFile({ processed: false, status: 'processing', latestRun: makeRun({ state: 'running', percent: 37.6 }) })).label).toBe('Processing 38%')
    expect(fileStatusView(makeFile({ processed: false, status: 'failed', processingError: 'Processing needs a CSV or Excel file' }))).toMatchObject({
      label: 'Failed',
      detail: 'Processing needs a CSV or Excel file',
    })
    expect(fileStatusView(makeFile({ processed: false, status: 'pending_review' })).label).toBe('Pending Validation')
  })

  it('counts files waiting for a lever and for validation', () => {
    const files = [
      makeFile(),
      makeFile({ id: 'f-2', leverId: null, processed: false, status: 'uploaded' }),
      makeFile({ id: 'f-3', processed: false, status: 'pending_review' }),
    ]
    expect(pendingCounts(files)).toEqual({ lever: 1, validation: 1, total: 2 })
    // The client's pending validations count as files pending validation too.
    expect(pendingCounts(files, 3)).toEqual({ lever: 1, validation: 4, total: 5 })
  })
})

describe('the list filters', () => {
  it('become query parameters, empty ones left out, the client always named', () => {
    expect(clientPath('/api/files', 'c-1', filterParams(NO_FILTERS))).toBe('/api/files?client_id=c-1')
    expect(clientPath('/api/files', 'c 1', filterParams({ q: ' madrid ', lever: 'none', type: 'csv', processed: 'true', from: '2025-01-01', to: '2025-01-31' }))).toBe(
      '/api/files?client_id=c+1&q=madrid&lever=none&type=csv&processed=true&from=2025-01-01&to=2025-01-31',
    )
  })
})

describe('upload checks', () => {
  it('accept CSV, Excel and PDF up to 20 MB and refuse the rest with the messages of the spec', () => {
    expect(checkUpload({ name: 'a.csv', size: 10 })).toBeNull()
    expect(checkUpload({ name: 'a.XLSX', size: 10 })).toBeNull()
    expect(checkUpload({ name: 'a.pdf', size: 10 })).toBeNull()
    expect(checkUpload({ name: 'a.exe', size: 10 })).toBe('Please upload only PDF, Excel, or CSV files.')
    expect(checkUpload({ name: 'noext', size: 10 })).toBe('Please upload only PDF, Excel, or CSV files.')
    expect(checkUpload({ name: 'a.csv', size: 0 })).toBe('The uploaded file appears to be empty or invalid.')
    expect(checkUpload({ name: 'a.csv', size: MAX_UPLOAD_BYTES })).toBeNull()
    expect(checkUpload({ name: 'a.csv', size: MAX_UPLOAD_BYTES + 1 })).toBe('File too large. The maximum size is 20 MB.')
  })
})
