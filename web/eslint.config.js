import { readdirSync } from 'node:fs'

import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// Import boundaries (shared -> features -> app): a feature never imports another feature or the
// app wiring; shared code (components, lib, config, hooks) never imports features or the app.
const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

const featureBoundaries = features.map((feature) => ({
  files: [`src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^@/features/(?!${feature}/)`,
            message: 'Features must not import other features; move shared code to components, lib or config.',
          },
          { regex: '^@/app/', message: 'Features must not import the app wiring.' },
          { regex: '^\\.\\./\\.\\./', message: 'Use the @/ alias for imports outside the feature.' },
        ],
      },
    ],
  },
}))

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'src/api/types', 'playwright-report', 'test-results'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2023, globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...featureBoundaries,
  {
    files: ['src/components/**/*.{ts,tsx}', 'src/lib/**/*.{ts,tsx}', 'src/config/**/*.{ts,tsx}', 'src/hooks/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@/features/', message: 'Shared code must not import features.' },
            { regex: '^@/app/', message: 'Shared code must not import the app wiring.' },
          ],
        },
      ],
    },
  },
  {
    files: ['e2e/**/*.{js,mjs}', '*.config.{js,ts}'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2023, globals: globals.node },
  },
)
