import { ApiError } from '@/lib/api-client'
import { makeFile, makeInspection } from '@/testing/files-api'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { inspectFile, uploadFile } from './api'

const file = () => new File(['nif;importe\nP2807900B;1000\n'], 'pse.csv', { type: 'text/csv' })
const options = { mode: 'manual' as const, leverId: 'lev-pse', process: true, mapping: { NIF: 'nif' }, riskWeightFormat: null, maturityUnit: null }

describe('uploads', () => {
  it('send the file, then its options, with the CSRF header, naming the client', async () => {
    document.cookie = 'capopt_csrf=tok-1; path=/'
    const calls = mockApi({ 'POST /api/files': () => json(201, { file: makeFile(), run: null }) })
    const result = await uploadFile('c-1', file(), options)
    expect(result.file.id).toBe('f-1')
    expect(calls[0]!.url).toBe('/api/files?client_id=c-1')
    expect(calls[0]!.headers.get('X-CSRF-Token')).toBe('tok-1')
    const body = String(calls[0]!.body)
    expect(body.indexOf('name="file"')).toBeLessThan(body.indexOf('name="options"'))
    expect(body).toContain(JSON.stringify(options))
  })

  it("refresh the session once on 401 and send again; a refusal carries the server's message", async () => {
    let attempts = 0
    mockApi({
      'POST /api/files/inspect': () => (++attempts === 1 ? json(401, { code: 'unauthenticated', message: 'Authentication required' }) : json(200, makeInspection())),
      'GET /api/auth/me': () => json(200, makeUser()),
    })
    expect((await inspectFile('c-1', file())).columns).toHaveLength(5)
    expect(attempts).toBe(2)

    mockApi({ 'POST /api/files': () => json(413, { code: 'too_large', message: 'File too large' }) })
    const error = await uploadFile('c-1', file(), options).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 413, code: 'too_large', message: 'File too large' })
  })
})
