import { SiteFooter } from './site-footer'
import { SiteHeader } from './site-header'

type Section = { heading: string; paragraphs: string[] }

export type LegalDocument = 'terms' | 'privacy' | 'cookies'

const documents: Record<LegalDocument, { title: string; intro: string; sections: Section[] }> = {
  terms: {
    title: 'Terms of Service',
    intro:
      'These terms govern the use of CapOpt by the banks and advisory firms that hold an account, and by the people they authorise.',
    sections: [
      {
        heading: 'Accounts',
        paragraphs: [
          'Access is by administrator-created account or invitation only. You are responsible for keeping your password confidential and for the activity under your account.',
          'Your organisation decides who has access and with which role (admin, approver, user or viewer), and may withdraw access at any time.',
        ],
      },
      {
        heading: 'Your data',
        paragraphs: [
          'Files and figures you upload remain the property of your organisation. We process them only to provide the service.',
          'Capital figures produced by the service support, and do not replace, your own regulatory judgement and reporting obligations.',
        ],
      },
      {
        heading: 'Acceptable use',
        paragraphs: [
          'Do not upload data you are not authorised to share, attempt to access other organisations\' data, or interfere with the service.',
        ],
      },
      {
        heading: 'Changes',
        paragraphs: [
          'When these terms change in a material way, you will be asked to accept the new version the next time you sign in.',
        ],
      },
    ],
  },
  privacy: {
    title: 'Privacy Policy',
    intro: 'This policy explains which personal data CapOpt processes, why, and the rights you have over it.',
    sections: [
      {
        heading: 'What we collect',
        paragraphs: [
          'Account data: your name, work email, company and role. Waitlist data: the email address you submit and which form you used.',
          'Usage data needed to run the service securely, such as sign-in times and the changes you make, which are kept in an audit log.',
        ],
      },
      {
        heading: 'Why we process it',
        paragraphs: [
          'To provide and secure the service, to keep the audit trail your organisation and its supervisors rely on, and to contact waitlist sign-ups about access.',
        ],
      },
      {
        heading: 'Your rights',
        paragraphs: [
          'You may ask for access to, correction of or deletion of your personal data through your organisation\'s administrator. Waitlist sign-ups may ask to be removed at any time.',
        ],
      },
    ],
  },
  cookies: {
    title: 'Cookie Policy',
    intro: 'CapOpt uses only the cookies needed for the application to work. There are no advertising or tracking cookies.',
    sections: [
      {
        heading: 'Session cookies',
        paragraphs: [
          'capopt_access and capopt_refresh keep you signed in. They cannot be read by scripts and expire when your session ends or is refreshed.',
          'capopt_csrf protects your account against cross-site request forgery.',
        ],
      },
      {
        heading: 'Preference cookies',
        paragraphs: ['sidebar_state remembers whether you keep the navigation sidebar open. It expires after 7 days.'],
      },
    ],
  },
}

export function LegalPage({ document }: { document: LegalDocument }) {
  const { title, intro, sections } = documents[document]
  return (
    <div className="flex min-h-svh flex-col bg-white">
      <SiteHeader onLanding={false} />
      <main className="mx-auto w-full max-w-3xl flex-1 px-4 py-16 sm:px-6">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900">{title}</h1>
        <p className="mt-4 text-slate-600">{intro}</p>
        {sections.map((section) => (
          <section key={section.heading} className="mt-10">
            <h2 className="text-xl font-semibold text-slate-900">{section.heading}</h2>
            {section.paragraphs.map((paragraph) => (
              <p key={paragraph} className="mt-3 leading-7 text-slate-600">
                {paragraph}
              </p>
            ))}
          </section>
        ))}
      </main>
      <SiteFooter />
    </div>
  )
}
