import { fileURLToPath, URL } from 'node:url'

import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Vendor code is split by weight and by who needs it: the landing page pulls only the React
// runtime, the router and the small shared libraries; the authenticated shell's UI primitives,
// forms and date handling load with the lazy route modules that use them.
const vendorGroups: { name: string; test: RegExp; priority?: number }[] = [
  { name: 'vendor-react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
  { name: 'vendor-query', test: /node_modules[\\/]@tanstack[\\/]/ },
  // Slot is all the landing page's buttons need; it gets its own small chunk (higher priority
  // than the Radix group, which would otherwise pull it in as a dependency of the dialogs).
  { name: 'vendor-slot', test: /node_modules[\\/]@radix-ui[\\/](react-slot|react-compose-refs)[\\/]/, priority: 1 },
  {
    // Dialogs, menus and tooltips.
    name: 'vendor-radix',
    test: /node_modules[\\/](@radix-ui|radix-ui|@floating-ui|react-remove-scroll[^\\/]*|aria-hidden|react-style-singleton|use-callback-ref|use-sidecar|get-nonce)[\\/]/,
  },
  { name: 'vendor-forms', test: /node_modules[\\/](react-hook-form|@hookform)[\\/]/ },
  { name: 'vendor-zod', test: /node_modules[\\/]zod[\\/]/ },
  { name: 'vendor-date', test: /node_modules[\\/]date-fns[\\/]/ },
  // The report editor's weight (about 540 KB in one chunk before): the collaborative document
  // (Yjs and its protocols), ProseMirror, and Tiptap on top, each its own long-cached chunk that
  // loads in parallel with the others and only on the editor's route.
  { name: 'vendor-prosemirror', test: /node_modules[\\/](prosemirror-[^\\/]+|orderedmap|rope-sequence|w3c-keyname|@tiptap[\\/]pm)[\\/]/, priority: 2 },
  { name: 'vendor-yjs', test: /node_modules[\\/](yjs|y-protocols|y-websocket|lib0|@tiptap[\\/]y-tiptap)[\\/]/, priority: 1 },
  { name: 'vendor-tiptap', test: /node_modules[\\/]@tiptap[\\/]/ },
]

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    // `npm run dev` talks to a locally running `capopt serve` (default port 8080).
    proxy: { '/api': { target: process.env.CAPOPT_API ?? 'http://127.0.0.1:8080', ws: true } },
  },
  build: {
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: vendorGroups,
        },
      },
    },
  },
})
