import { useEffect, useState } from 'react'

import { connectReportDocument, type DocumentConnection, type DocumentStatus } from '@/lib/collab-provider'

import { readSections, SECTIONS_MAP, type Section } from '../utils/sections'

export type ReportDocument = {
  connection: DocumentConnection | null
  status: DocumentStatus
  /** The first sync with the server finished (the content shown is the stored one). */
  synced: boolean
  /** Close code of a final refusal (4401, 4403, 4404), if the server refused the document. */
  refused: number | null
  /** The server refused an edit: the caller may only read this document now. */
  readOnly: boolean
  sections: Section[]
}

/**
 * One y-websocket provider per open report, destroyed on unmount. The document content lives only
 * in the Y.Doc: this hook exposes the connection and the section list read from it.
 */
export function useReportDocument(reportId: string): ReportDocument {
  const [connection, setConnection] = useState<DocumentConnection | null>(null)
  const [status, setStatus] = useState<DocumentStatus>('connecting')
  const [synced, setSynced] = useState(false)
  const [refused, setRefused] = useState<number | null>(null)
  const [readOnly, setReadOnly] = useState(false)
  const [sections, setSections] = useState<Section[]>([])

  // The caller keys the component by report id, so state starts fresh for each report.
  useEffect(() => {
    const conn = connectReportDocument(reportId, {
      onStatus: setStatus,
      onSynced: () => setSynced(true),
      onRefused: setRefused,
      onPermissionDenied: () => setReadOnly(true),
    })
    const map = conn.doc.getMap(SECTIONS_MAP)
    const refresh = () => setSections(readSections(conn.doc))
    map.observeDeep(refresh)
    // The connection is the external system this effect opens; the component renders it.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setConnection(conn)
    refresh()
    return () => {
      map.unobserveDeep(refresh)
      conn.destroy()
      setConnection(null)
    }
  }, [reportId])

  return { connection, status, synced, refused, readOnly, sections }
}
