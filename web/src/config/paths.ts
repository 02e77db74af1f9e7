/**
 * Every route of the app, defined once. `path` is the router pattern; `getHref` builds a link.
 */
export const paths = {
  landing: { path: '/', getHref: () => '/' },
  home: { path: '/home', getHref: () => '/home' },
  login: {
    path: '/login',
    getHref: (redirectTo?: string | null) =>
      redirectTo ? `/login?redirect=${encodeURIComponent(redirectTo)}` : '/login',
  },
  forgotPassword: { path: '/forgot-password', getHref: () => '/forgot-password' },
  resetPassword: { path: '/reset-password', getHref: () => '/reset-password' },
  signup: { path: '/signup/:token', getHref: (token: string) => `/signup/${encodeURIComponent(token)}` },
  terms: { path: '/terms', getHref: () => '/terms' },
  privacy: { path: '/privacy', getHref: () => '/privacy' },
  cookies: { path: '/cookies', getHref: () => '/cookies' },

  admin: {
    root: { path: '/admin', getHref: () => '/admin' },
    dashboard: { path: '/admin/dashboard', getHref: () => '/admin/dashboard' },
    fileManagement: { path: '/admin/file-management', getHref: () => '/admin/file-management' },
    processingRuns: { path: '/admin/processing-runs', getHref: () => '/admin/processing-runs' },
    columnConfiguration: { path: '/admin/column-configuration', getHref: () => '/admin/column-configuration' },
    universalMappings: { path: '/admin/universal-mappings', getHref: () => '/admin/universal-mappings' },
    classificationTraining: { path: '/admin/classification-training', getHref: () => '/admin/classification-training' },
    calculator: { path: '/admin/calculator', getHref: () => '/admin/calculator' },
    leverDictionary: { path: '/admin/lever-dictionary', getHref: () => '/admin/lever-dictionary' },
    leverJustifications: { path: '/admin/lever-justifications', getHref: () => '/admin/lever-justifications' },
    knowledgeBase: { path: '/admin/knowledge-base', getHref: () => '/admin/knowledge-base' },
    clients: { path: '/admin/clients', getHref: () => '/admin/clients' },
    clientDataRoom: {
      path: '/admin/client-data-room/:clientId',
      getHref: (clientId: string) => `/admin/client-data-room/${encodeURIComponent(clientId)}`,
    },
    userManagement: { path: '/admin/settings', getHref: () => '/admin/settings' },
    templates: { path: '/admin/report-generator-templates', getHref: () => '/admin/report-generator-templates' },
    templateCreate: { path: '/admin/report-generator-templates/create', getHref: () => '/admin/report-generator-templates/create' },
    templateCreateFromPdf: {
      path: '/admin/report-generator-templates/create-from-pdf',
      getHref: () => '/admin/report-generator-templates/create-from-pdf',
    },
    templateEdit: {
      path: '/admin/report-generator-templates/edit/:templateId',
      getHref: (id: string) => `/admin/report-generator-templates/edit/${encodeURIComponent(id)}`,
    },
    templatePreview: {
      path: '/admin/report-generator-templates/preview/:templateId',
      getHref: (id: string) => `/admin/report-generator-templates/preview/${encodeURIComponent(id)}`,
    },
  },
  // The profile menu's pages (spec 000 section 2.4): administrators' profile and settings, and
  // everyone else's settings (an alias of /client/settings).
  adminProfile: { path: '/admin-profile', getHref: () => '/admin-profile' },
  adminSettings: { path: '/admin-settings', getHref: () => '/admin-settings' },
  clientSettings: { path: '/client-settings', getHref: () => '/client-settings' },
  client: {
    root: { path: '/client', getHref: () => '/client' },
    home: { path: '/client/home', getHref: () => '/client/home' },
    dashboard: { path: '/client/dashboard', getHref: () => '/client/dashboard' },
    board: { path: '/client/board', getHref: () => '/client/board' },
    files: { path: '/client/files', getHref: () => '/client/files' },
    fileProcessor: {
      path: '/client/file-processor',
      getHref: (mode?: 'manual' | 'enhanced-ai') => (mode ? `/client/file-processor?mode=${mode}` : '/client/file-processor'),
    },
    reports: { path: '/client/report-generator', getHref: () => '/client/report-generator' },
    calculator: { path: '/client/calculator', getHref: () => '/client/calculator' },
    aiDashboard: { path: '/client/ai-dashboard', getHref: () => '/client/ai-dashboard' },
    support: { path: '/client/support', getHref: () => '/client/support' },
    settings: { path: '/client/settings', getHref: () => '/client/settings' },
    reportEditor: {
      path: '/client/report-generator/edit/:reportId',
      getHref: (reportId: string) => `/client/report-generator/edit/${encodeURIComponent(reportId)}`,
    },
  },
} as const

/** Paths on which the 'Verifying authentication...' overlay never shows. */
export const PATHS_WITHOUT_AUTH_OVERLAY: readonly string[] = [paths.landing.path, paths.home.path, paths.login.path]

/** True for paths of the signed-in areas. */
export function isProtectedPath(pathname: string): boolean {
  return /^\/(admin|client)(\/|$)/.test(pathname) || /^\/(admin-profile|admin-settings|client-settings)\/?$/.test(pathname)
}

/**
 * The target after sign-in when a redirect was requested: only paths inside the app are accepted,
 * never another origin.
 */
export function safeRedirect(target: string | null | undefined): string | null {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.includes('\\')) return null
  return isProtectedPath(target.split(/[?#]/)[0] ?? '') ? target : null
}
