import { Navigate, type RouteObject } from 'react-router'

import { paths } from '@/config/paths'

import { GuestOnly, RequireAuth } from './guard'
import { RootLayout, RouteFallback } from './root-layout'

/** The route table. Page modules load lazily so the landing page does not carry the app. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    hydrateFallbackElement: <RouteFallback />,
    children: [
      { path: paths.landing.path, lazy: () => import('./routes/landing') },
      { path: paths.home.path, lazy: () => import('./routes/landing') },
      {
        element: <GuestOnly />,
        children: [{ path: paths.login.path, lazy: () => import('./routes/login') }],
      },
      { path: paths.forgotPassword.path, lazy: () => import('./routes/forgot-password') },
      { path: paths.resetPassword.path, lazy: () => import('./routes/reset-password') },
      { path: paths.signup.path, lazy: () => import('./routes/signup') },
      { path: paths.terms.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.TermsRoute })) },
      { path: paths.privacy.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.PrivacyRoute })) },
      { path: paths.cookies.path, lazy: () => import('./routes/legal').then((m) => ({ Component: m.CookiesRoute })) },
      {
        path: paths.admin.root.path,
        element: <RequireAuth area="admin" />,
        children: [
          {
            lazy: () => import('./routes/app-layout'),
            children: [
              { index: true, element: <Navigate to={paths.admin.dashboard.getHref()} replace /> },
              { path: paths.admin.dashboard.path, lazy: () => import('./routes/admin/dashboard') },
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
              { path: paths.client.home.path, lazy: () => import('./routes/client/home') },
              { path: paths.client.board.path, lazy: () => import('./routes/client/board') },
              { path: paths.client.reports.path, lazy: () => import('./routes/client/report-generator') },
              { path: paths.client.reportEditor.path, lazy: () => import('./routes/client/report-editor') },
            ],
          },
        ],
      },
      { path: '*', lazy: () => import('./routes/not-found') },
    ],
  },
]
