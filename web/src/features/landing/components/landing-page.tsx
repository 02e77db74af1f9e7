import {
  BadgeCheck,
  BarChart3,
  BrainCircuit,
  FileSpreadsheet,
  FileText,
  Layers,
  Quote,
  Scale,
  SearchCheck,
  TrendingDown,
} from 'lucide-react'

import { SiteFooter } from './site-footer'
import { SiteHeader } from './site-header'
import { WaitlistForm } from './waitlist-form'

const features = [
  {
    icon: Scale,
    title: 'Risk-weight analysis',
    text: 'Score exposure files against the CRR risk-weight rules and see, row by row, where risk-weighted assets can come down.',
  },
  {
    icon: Layers,
    title: 'Optimisation levers',
    text: 'A shared dictionary of levers across assets, CET1 deductions and credit risk mitigation, with the savings each one delivers.',
  },
  {
    icon: BrainCircuit,
    title: 'AI-assisted classification',
    text: 'Column mapping and exposure classification suggested by AI and explained, then reviewed and approved by your experts.',
  },
  {
    icon: TrendingDown,
    title: 'Savings tracking',
    text: 'RWA and basis-point savings per client, per lever and over time, on dashboards that update as the work progresses.',
  },
  {
    icon: FileText,
    title: 'Regulatory reporting',
    text: 'Build reports from templates with charts and tables drawn from your own figures, edit them together and export to PDF.',
  },
  {
    icon: BadgeCheck,
    title: 'Validation and audit trail',
    text: 'Approvers validate every result before it counts, and every change is recorded for internal audit and supervisors.',
  },
]

const steps = [
  {
    icon: FileSpreadsheet,
    title: 'Bring your data',
    text: 'Upload the exposure and balance-sheet files you already produce, in Excel or CSV. Columns are mapped once and reused.',
  },
  {
    icon: SearchCheck,
    title: 'Find the savings',
    text: 'The rules engine applies the regulation line by line and the levers quantify each opportunity in RWAs and bps of CET1.',
  },
  {
    icon: BarChart3,
    title: 'Act and track',
    text: 'Approved savings flow into client dashboards and reports, so progress against capital targets is always current.',
  },
]

export function LandingPage() {
  return (
    <div className="flex min-h-svh flex-col bg-white">
      <SiteHeader />
      <main className="flex-1">
        <section className="relative overflow-hidden bg-gradient-to-b from-brand-50 via-white to-white">
          <div className="mx-auto grid max-w-6xl gap-12 px-4 py-20 sm:px-6 md:py-28 lg:grid-cols-[1.15fr_1fr] lg:items-center">
            <div className="space-y-7">
              <p className="inline-flex rounded-full border border-brand-200 bg-white px-3 py-1 text-xs font-semibold tracking-wide text-brand-700 uppercase">
                Regulatory capital optimisation
              </p>
              <h1 className="text-4xl leading-tight font-bold tracking-tight text-slate-900 sm:text-5xl">
                Free up capital. <span className="text-brand-700">Prove every basis point.</span>
              </h1>
              <p className="max-w-xl text-lg text-slate-600">
                CapOpt helps banks and their advisers find, quantify and track capital savings, measured in risk-weighted
                assets and basis points of CET1, across every client and every optimisation lever.
              </p>
              <WaitlistForm source="hero" />
              <p className="text-sm text-slate-500">Join the waitlist for early access. No spam, ever.</p>
            </div>
            <HeroFigure />
          </div>
        </section>

        <section id="about" className="scroll-mt-16 border-y border-slate-100 bg-slate-50">
          <div className="mx-auto grid max-w-6xl gap-10 px-4 py-20 sm:px-6 md:grid-cols-2">
            <div className="space-y-4">
              <h2 className="text-sm font-semibold tracking-wide text-brand-700 uppercase">Our mission</h2>
              <p className="text-3xl font-bold tracking-tight text-slate-900">
                Capital is a bank's scarcest resource. It should never be tied up by accident.
              </p>
            </div>
            <div className="space-y-4 text-slate-600">
              <p>
                Risk-weighted assets are often overstated by misclassified exposures, unused collateral and conservative
                shortcuts taken under time pressure. Each of them costs CET1 capital that could fund lending.
              </p>
              <p>
                We give capital teams one place to analyse their portfolios against the regulation, agree the levers
                that apply and follow the savings through to reporting, with every figure traceable to its source.
              </p>
            </div>
          </div>
        </section>

        <section id="features" className="scroll-mt-16">
          <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
            <div className="mx-auto max-w-2xl text-center">
              <h2 className="text-sm font-semibold tracking-wide text-brand-700 uppercase">Features</h2>
              <p className="mt-2 text-3xl font-bold tracking-tight text-slate-900">Everything a capital team needs</p>
            </div>
            <div className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
              {features.map(({ icon: Icon, title, text }) => (
                <article key={title} className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
                  <span className="inline-flex size-10 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
                    <Icon className="size-5" aria-hidden="true" />
                  </span>
                  <h3 className="mt-4 text-lg font-semibold text-slate-900">{title}</h3>
                  <p className="mt-2 text-sm leading-6 text-slate-600">{text}</p>
                </article>
              ))}
            </div>
          </div>
        </section>

        <section id="approach" className="scroll-mt-16 bg-slate-50">
          <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
            <div className="mx-auto max-w-2xl text-center">
              <h2 className="text-sm font-semibold tracking-wide text-brand-700 uppercase">Our Approach</h2>
              <p className="mt-2 text-3xl font-bold tracking-tight text-slate-900">From raw files to proven savings</p>
            </div>
            <ol className="mt-12 grid gap-8 md:grid-cols-3">
              {steps.map(({ icon: Icon, title, text }, index) => (
                <li key={title} className="relative rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
                  <span className="absolute -top-3 left-6 rounded-full bg-brand-700 px-2.5 py-0.5 text-xs font-semibold text-white">
                    Step {index + 1}
                  </span>
                  <Icon className="size-6 text-brand-700" aria-hidden="true" />
                  <h3 className="mt-3 text-lg font-semibold text-slate-900">{title}</h3>
                  <p className="mt-2 text-sm leading-6 text-slate-600">{text}</p>
                </li>
              ))}
            </ol>
          </div>
        </section>

        <section id="contact" className="scroll-mt-16 bg-brand-900 text-white">
          <div className="mx-auto grid max-w-6xl gap-12 px-4 py-20 sm:px-6 lg:grid-cols-2 lg:items-center">
            <div className="space-y-6">
              <h2 className="text-3xl font-bold tracking-tight">Ready to put your capital to work?</h2>
              <p className="text-brand-100">
                We are onboarding a small number of banks and advisory firms. Leave your work email and we will get in
                touch to arrange access.
              </p>
              <WaitlistForm source="cta" tone="dark" />
            </div>
            <figure className="rounded-2xl bg-white/10 p-8 ring-1 ring-white/15">
              <Quote className="size-8 text-brand-300" aria-hidden="true" />
              <blockquote className="mt-4 text-lg leading-8">
                “For the first time our capital and risk teams work from the same numbers. We can show the board exactly
                which levers saved how many basis points, and where each figure came from.”
              </blockquote>
              <figcaption className="mt-6 text-sm text-brand-200">Head of Capital Management, European retail bank</figcaption>
            </figure>
          </div>
        </section>
      </main>
      <SiteFooter />
    </div>
  )
}

const tracked = [
  { title: 'Risk-weighted assets', text: 'Per exposure, per client and per lever' },
  { title: 'CET1 basis points', text: 'Savings converted with each client\'s own capital ratio' },
  { title: 'Lever categories', text: 'Assets, CET1 deductions, CRMT and Other' },
  { title: 'Approval status', text: 'Nothing counts until an approver signs it off' },
]

/** What the product measures, as a summary card beside the hero text. */
function HeroFigure() {
  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-xl shadow-brand-900/5">
      <p className="text-sm font-semibold text-slate-700">What CapOpt tracks</p>
      <ul className="mt-5 space-y-4">
        {tracked.map((item) => (
          <li key={item.title} className="flex gap-3">
            <span className="mt-1 size-2.5 shrink-0 rounded-full bg-brand-600" aria-hidden="true" />
            <span>
              <span className="block text-sm font-medium text-slate-900">{item.title}</span>
              <span className="block text-sm text-slate-500">{item.text}</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}
