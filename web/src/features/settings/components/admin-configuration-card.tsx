import type { ReactNode } from 'react'

import { Alert } from '@/components/ui/alert'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'

import { useConfiguration } from '../api'

function Row({ label, children, hint }: { label: string; children: ReactNode; hint?: string }) {
  return (
    <div className="grid gap-1 border-b border-slate-100 py-3 last:border-0 sm:grid-cols-[14rem_1fr]">
      <dt className="text-sm font-medium text-slate-700">{label}</dt>
      <dd className="text-sm text-slate-900">
        {children}
        {hint ? <span className="block text-xs text-slate-500">{hint}</span> : null}
      </dd>
    </div>
  )
}

/** What administrators need to know of the server's configuration, read-only (it is set in the environment). */
export function AdminConfigurationCard() {
  const config = useConfiguration()
  return (
    <Card>
      <CardHeader>
        <CardTitle>Mail and uploads</CardTitle>
        <CardDescription>Set in the server&apos;s environment; shown here read-only.</CardDescription>
      </CardHeader>
      <CardContent>
        {config.isPending ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner /> Loading the configuration…
          </p>
        ) : config.isError ? (
          <Alert variant="destructive">{errorMessage(config.error, 'Could not load the configuration.')}</Alert>
        ) : (
          <dl>
            <Row label="Mail sender" hint="MAIL_FROM">
              {config.data.mailFrom}
            </Row>
            <Row label="Mail delivery" hint="SMTP_URL">
              {config.data.smtpConfigured ? 'SMTP' : 'Outbox only (no SMTP server configured)'}
            </Row>
            <Row label="Support address" hint="SUPPORT_EMAIL">
              {config.data.supportEmail}
            </Row>
            <Row label="Client file uploads" hint="MAX_UPLOAD_MB">
              Up to {config.data.maxUploadMb} MB per file
            </Row>
            <Row label="Lever analysis files">
              {config.data.leverFileTypes.join(', ')}, up to {config.data.leverFileMaxMb} MB each, {config.data.leverFilesPerUpload} per upload
            </Row>
            <Row label="Profile photos">PNG, JPEG, GIF or WebP, up to {config.data.avatarMaxMb} MB</Row>
            <Row label="File storage" hint="S3_BUCKET">
              {config.data.storage === 's3' ? 'S3 bucket' : 'Local directory'}
            </Row>
          </dl>
        )}
      </CardContent>
    </Card>
  )
}
