import { useId, type ReactNode } from 'react'

import { Label } from './label'

type FieldProps = {
  label: string
  /** The validation message, shown under the control. */
  error?: string
  hint?: ReactNode
  /** Renders the control with the ids that tie it to its label and message. */
  children: (ids: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode
  labelAside?: ReactNode
}

/** A labelled form control with its validation message. */
export function FormField({ label, error, hint, children, labelAside }: FieldProps) {
  const id = useId()
  const messageId = `${id}-message`
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between">
        <Label htmlFor={id}>{label}</Label>
        {labelAside}
      </div>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': error ? messageId : undefined })}
      {error ? (
        <p id={messageId} role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : hint ? (
        <p className="text-xs text-slate-500">{hint}</p>
      ) : null}
    </div>
  )
}
