import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

import { acceptTerms } from '../api'

const clauses = [
  {
    heading: 'Authorised use',
    text: 'You use CapOpt on behalf of your organisation, within the role it has given you. Keep your credentials to yourself; your organisation can withdraw your access at any time.',
  },
  {
    heading: 'Confidential data',
    text: 'Client files, capital figures and reports are confidential to your organisation and its clients. Do not upload data you are not authorised to share, and do not take data out of the platform except through its exports.',
  },
  {
    heading: 'Professional judgement',
    text: 'Risk weights, lever savings and AI suggestions support your analysis. They do not replace your own regulatory judgement, your approval process or your reporting obligations.',
  },
  {
    heading: 'Audit trail',
    text: 'Your actions, including uploads, approvals and edits, are recorded in an audit log that your organisation and its supervisors may review.',
  },
  {
    heading: 'Personal data',
    text: 'Your name, email, company and role are processed to run the service, as described in the Privacy Policy.',
  },
]

/** The blocking terms dialog shown until the user accepts; declining signs them out. */
export function TermsDialog() {
  const setUser = useAuthStore((s) => s.setUser)
  const signOut = useAuthStore((s) => s.signOut)
  const [busy, setBusy] = useState<'accept' | 'decline' | null>(null)

  const accept = async () => {
    setBusy('accept')
    try {
      setUser(await acceptTerms())
    } catch {
      toast.error('Failed to accept terms. Please try again.')
    } finally {
      setBusy(null)
    }
  }

  const decline = async () => {
    setBusy('decline')
    try {
      await signOut()
      toast.error('Terms declined', 'You must accept the terms to use this application.')
    } catch {
      toast.error('Logout failed')
      setBusy(null)
    }
  }

  return (
    <Dialog open>
      <DialogContent blocking className="max-w-2xl" aria-describedby="terms-description">
        <DialogHeader>
          <DialogTitle>Terms and Conditions</DialogTitle>
          <DialogDescription id="terms-description">
            Please read and accept the terms of use before you continue.
          </DialogDescription>
        </DialogHeader>
        <div className="max-h-[50vh] space-y-4 overflow-y-auto rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm leading-6 text-slate-700">
          {clauses.map((clause, index) => (
            <section key={clause.heading}>
              <h3 className="font-semibold text-slate-900">
                {index + 1}. {clause.heading}
              </h3>
              <p>{clause.text}</p>
            </section>
          ))}
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={decline} disabled={busy !== null}>
            {busy === 'decline' ? <Spinner /> : null} Decline
          </Button>
          <Button onClick={accept} disabled={busy !== null}>
            {busy === 'accept' ? <Spinner /> : null} Accept
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
