import { LegalPage } from '@/features/landing/components/legal-page'

export function TermsRoute() {
  return <LegalPage document="terms" />
}

export function PrivacyRoute() {
  return <LegalPage document="privacy" />
}

export function CookiesRoute() {
  return <LegalPage document="cookies" />
}
