/**
 * The fonts of the report screens (spec 002): the branding panel's 5 (also the charts' and
 * tables'), the editor toolbar's 11 and the template editor's 16, each list extending the one
 * before. The server accepts the template editor's 16 (`service::report_templates::FONTS`).
 */
export const BRANDING_FONTS = ['SF Pro Display', 'Arial', 'Helvetica', 'Times New Roman', 'Georgia'] as const
export const TOOLBAR_FONTS = [...BRANDING_FONTS, 'Calibri', 'Verdana', 'Garamond', 'Courier New', 'Roboto', 'Inter'] as const
export const TEMPLATE_FONTS = [...TOOLBAR_FONTS, 'Open Sans', 'Lato', 'Montserrat', 'Source Sans Pro', 'Palatino'] as const
