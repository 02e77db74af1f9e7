import { Navigate, type RouteObject } from 'react-router'

import { paths } from '@/config/paths'

import { GuestOnly, RequireAuth } from './guard'
import { RootLayout, RouteFallback } from './root-layout'

/**
 * An unknown path under /admin or /client. It sits inside the guarded area, so the guard answers
 * first (anonymous: /login with the origin path; a non-admin on /admin: /client/home) and only a
 * user allowed in sees the 404, inside the shell.
 */
const notFoundInShell: RouteObject = {
  path: '*',
  lazy: () => import('./routes/not-found').then((m) => ({ Component: m.InShell })),
  handle: { title: 'Page not found' },
}

/**
 * The route table. Page modules load lazily so the landing page does not carry the app. A
 * route's `handle.title` is its tab title (`RouteHandle`).
 */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    hydrateFallbackElement: <RouteFallback />,
    children: [
      { path: paths.landing.path, lazy: () => import('./routes/landing') },
      { path: paths.home.path, lazy: () => import('./routes/landing') },
      {
        element: <GuestOnly />,
        children: [{ path: paths.login.path, lazy: () => import('./routes/login'), handle: { title: 'Sign in' } }],
      },
      { path: paths.forgotPassword.path, lazy: () => import('./routes/forgot-password'), handle: { title: 'Forgot password' } },
      { path: paths.resetPassword.path, lazy: () => import('./routes/reset-password'), handle: { title: 'Set password' } },
      { path: paths.signup.path, lazy: () => import('./routes/signup'), handle: { title: 'Create your account' } },
      { path: paths.terms.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.TermsRoute })), handle: { title: 'Terms of Service' } },
      { path: paths.privacy.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.PrivacyRoute })), handle: { title: 'Privacy Policy' } },
      { path: paths.cookies.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.CookiesRoute })), handle: { title: 'Cookie Policy' } },
      {
        path: paths.admin.root.path,
        element: <RequireAuth area="admin" />,
        children: [
          {
            lazy: () => import('./routes/app-layout'),
            children: [
              { index: true, element: <Navigate to={paths.admin.dashboard.getHref()} replace /> },
              { path: paths.admin.dashboard.path, lazy: () => import('./routes/admin/dashboard'), handle: { title: 'Admin Dashboard' } },
              { path: paths.admin.fileManagement.path, lazy: () => import('./routes/admin/file-management'), handle: { title: 'File Management' } },
              { path: paths.admin.processingRuns.path, lazy: () => import('./routes/admin/processing-runs'), handle: { title: 'Processing Runs' } },
              { path: paths.admin.columnConfiguration.path, lazy: () => import('./routes/admin/column-configuration'), handle: { title: 'Column Configuration' } },
              { path: paths.admin.universalMappings.path, lazy: () => import('./routes/admin/universal-mappings'), handle: { title: 'Universal Column Mappings' } },
              { path: paths.admin.classificationTraining.path, lazy: () => import('./routes/admin/classification-training'), handle: { title: 'Classification Training' } },
              { path: paths.admin.calculator.path, lazy: () => import('./routes/admin/calculator'), handle: { title: 'Calculator' } },
              { path: paths.admin.leverDictionary.path, lazy: () => import('./routes/admin/lever-dictionary'), handle: { title: 'Lever dictionary' } },
              { path: paths.admin.leverJustifications.path, lazy: () => import('./routes/admin/lever-justifications'), handle: { title: 'Lever Justifications' } },
              { path: paths.admin.knowledgeBase.path, lazy: () => import('./routes/admin/knowledge-base'), handle: { title: 'AI Knowledge Base' } },
              { path: paths.admin.clients.path, lazy: () => import('./routes/admin/clients'), handle: { title: 'Clients' } },
              { path: paths.admin.clientDataRoom.path, lazy: () => import('./routes/admin/client-data-room'), handle: { title: 'Client Data Room' } },
              { path: paths.admin.userManagement.path, lazy: () => import('./routes/admin/user-management'), handle: { title: 'User Management' } },
              { path: paths.admin.templates.path, lazy: () => import('./routes/admin/report-templates'), handle: { title: 'Report Templates' } },
              { path: paths.admin.templateCreate.path, lazy: () => import('./routes/admin/report-template-create'), handle: { title: 'Create Template' } },
              {
                path: paths.admin.templateCreateFromPdf.path,
                lazy: () => import('./routes/admin/report-template-create-from-pdf'),
                handle: { title: 'Create Template from PDF' },
              },
              { path: paths.admin.templateEdit.path, lazy: () => import('./routes/admin/report-template-edit'), handle: { title: 'Edit Template' } },
              { path: paths.admin.templatePreview.path, lazy: () => import('./routes/admin/report-template-preview'), handle: { title: 'Template Preview' } },
              notFoundInShell,
            ],
          },
        ],
      },
      {
        path: paths.client.root.path,
        element: <RequireAuth area="client" />,
        children: [
          {
            lazy: () => import('./routes/app-layout'),
            children: [
              { index: true, element: <Navigate to={paths.client.home.getHref()} replace /> },
              { path: paths.client.home.path, lazy: () => import('./routes/client/home'), handle: { title: 'Home' } },
              { path: paths.client.dashboard.path, lazy: () => import('./routes/client/dashboard'), handle: { title: 'Capital Optimization Dashboard' } },
              { path: paths.client.files.path, lazy: () => import('./routes/client/files'), handle: { title: 'Our Files' } },
              { path: paths.client.fileProcessor.path, lazy: () => import('./routes/client/file-processor'), handle: { title: 'File Processor' } },
              { path: paths.client.board.path, lazy: () => import('./routes/client/board'), handle: { title: 'Task Board' } },
              { path: paths.client.reports.path, lazy: () => import('./routes/client/report-generator'), handle: { title: 'Report Generator' } },
              { path: paths.client.reportEditor.path, lazy: () => import('./routes/client/report-editor'), handle: { title: 'Report Editor' } },
              { path: paths.client.calculator.path, lazy: () => import('./routes/client/calculator'), handle: { title: 'Capital Optimization Calculator' } },
              { path: paths.client.aiDashboard.path, lazy: () => import('./routes/client/ai-dashboard'), handle: { title: 'AI Insights' } },
              { path: paths.client.support.path, lazy: () => import('./routes/client/support'), handle: { title: 'FAQ & Support' } },
              { path: paths.client.settings.path, lazy: () => import('./routes/client/settings'), handle: { title: 'Settings' } },
              notFoundInShell,
            ],
          },
        ],
      },
      // The profile menu's pages: administrators' profile and settings, and everyone else's settings.
      {
        element: <RequireAuth area="admin" />,
        children: [
          {
            lazy: () => import('./routes/app-layout'),
            children: [
              { path: paths.adminProfile.path, lazy: () => import('./routes/admin/profile'), handle: { title: 'Profile' } },
              { path: paths.adminSettings.path, lazy: () => import('./routes/admin/settings-page'), handle: { title: 'Settings' } },
            ],
          },
        ],
      },
      {
        path: paths.clientSettings.path,
        element: <RequireAuth area="client" />,
        children: [{ index: true, element: <Navigate to={paths.client.settings.getHref()} replace /> }],
      },
      { path: '*', lazy: () => import('./routes/not-found'), handle: { title: 'Page not found' } },
    ],
  },
]
